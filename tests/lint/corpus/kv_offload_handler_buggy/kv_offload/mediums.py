from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BlockIDsLoadStoreSpec:
    block_ids: np.ndarray

    @property
    def medium(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @property
    def medium(self) -> str:
        return "GPU"


@dataclass(frozen=True)
class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @property
    def medium(self) -> str:
        return "CPU"


TransferSpec = tuple[BlockIDsLoadStoreSpec, BlockIDsLoadStoreSpec]
