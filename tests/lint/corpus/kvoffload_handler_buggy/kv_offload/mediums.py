# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
from dataclasses import dataclass

import numpy as np


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


TransferSpec = tuple[BlockIDsLoadStoreSpec, BlockIDsLoadStoreSpec]


@dataclass
class TransferResult:
    job_id: int
    success: bool
    transfer_size: int
    transfer_time: float
    transfer_type: tuple[str, str]
