from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np


class LoadStoreSpec(ABC):
    """Where a set of KV blocks lives (one side of a transfer)."""

    @staticmethod
    @abstractmethod
    def medium() -> str:
        ...


@dataclass(frozen=True)
class BlockIDsLoadStoreSpec(LoadStoreSpec, ABC):
    block_ids: np.ndarray

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.block_ids.tolist()!r})"


class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "GPU"


class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "CPU"


TransferSpec = tuple[LoadStoreSpec, LoadStoreSpec]
TransferResult = tuple[int, bool]
