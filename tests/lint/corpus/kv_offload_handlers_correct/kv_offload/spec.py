# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass

import numpy as np


@dataclass
class BlockIDsLoadStoreSpec:
    """Block ids of one medium taking part in a transfer."""

    block_ids: np.ndarray
    medium: str


class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    def __init__(self, block_ids: np.ndarray):
        super().__init__(block_ids=block_ids, medium="GPU")


class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    def __init__(self, block_ids: np.ndarray):
        super().__init__(block_ids=block_ids, medium="CPU")


TransferSpec = tuple[BlockIDsLoadStoreSpec, BlockIDsLoadStoreSpec]


@dataclass
class TransferResult:
    job_id: int
    success: bool
    transfer_size: int
    transfer_time: float
    transfer_type: tuple[str, str]
