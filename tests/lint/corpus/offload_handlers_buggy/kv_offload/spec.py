from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class BlockIDsLoadStoreSpec:
    block_ids: np.ndarray
    medium: str


@dataclass
class TransferResult:
    job_id: int
    success: bool
    transfer_size: int
    transfer_time: float
    transfer_type: tuple[str, str]


TransferSpec = tuple[BlockIDsLoadStoreSpec, BlockIDsLoadStoreSpec]

GPU_MEDIUM = "GPU"
CPU_MEDIUM = "CPU"
