# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass

import numpy as np


class LoadStoreSpec:
    """Where a transfer reads from or writes to."""

    @staticmethod
    def medium() -> str:
        raise NotImplementedError


@dataclass
class BlockIDsLoadStoreSpec(LoadStoreSpec):
    block_ids: np.ndarray

    def __post_init__(self):
        self.block_ids = np.asarray(self.block_ids, dtype=np.int64)


class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "GPU"


class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "CPU"


TransferSpec = tuple[LoadStoreSpec, LoadStoreSpec]
TransferType = tuple[str, str]


@dataclass
class TransferResult:
    job_id: int
    success: bool
    transfer_size: int = 0
    transfer_type: TransferType = ("", "")
