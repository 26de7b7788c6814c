# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass

import numpy as np

TransferSpec = tuple["BlockIDsLoadStoreSpec", "BlockIDsLoadStoreSpec"]

# Number of pooled streams kept per direction before new ones are created.
STREAM_POOL_SIZE = 4


@dataclass
class BlockIDsLoadStoreSpec:
    block_ids: np.ndarray

    @staticmethod
    def medium() -> str:
        raise NotImplementedError


class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "GPU"


class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "CPU"


@dataclass
class TransferResult:
    job_id: int
    success: bool
    transfer_size: int
    transfer_type: tuple[str, str]
