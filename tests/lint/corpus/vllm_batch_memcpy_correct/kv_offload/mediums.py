# SPDX-License-Identifier: Apache-2.0
from abc import ABC
from typing import Tuple

import numpy as np


class LoadStoreSpec(ABC):
    @staticmethod
    def medium() -> str:
        raise NotImplementedError


class BlockIDsLoadStoreSpec(LoadStoreSpec):
    def __init__(self, block_ids: list[int]):
        self.block_ids = np.array(block_ids, dtype=np.int64)


class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "GPU"


class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "CPU"


TransferSpec = Tuple[LoadStoreSpec, LoadStoreSpec]
