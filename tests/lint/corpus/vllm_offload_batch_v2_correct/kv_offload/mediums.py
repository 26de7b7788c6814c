from dataclasses import dataclass
from typing import Tuple

import numpy as np

GPU_MEDIUM = "GPU"
CPU_MEDIUM = "CPU"

# (src_medium, dst_medium)
TransferType = Tuple[str, str]
STORE: TransferType = (GPU_MEDIUM, CPU_MEDIUM)
LOAD: TransferType = (CPU_MEDIUM, GPU_MEDIUM)


@dataclass
class BlockIDsLoadStoreSpec:
    block_ids: np.ndarray

    def medium(self) -> str:
        raise NotImplementedError


@dataclass
class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    def medium(self) -> str:
        return GPU_MEDIUM


@dataclass
class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    def medium(self) -> str:
        return CPU_MEDIUM
