# SPDX-License-Identifier: Apache-2.0
from abc import ABC, abstractmethod

import numpy as np


class LoadStoreSpec(ABC):
    """Abstract metadata describing where a set of KV blocks lives."""

    @staticmethod
    @abstractmethod
    def medium() -> str:
        pass


class BlockIDsLoadStoreSpec(LoadStoreSpec, ABC):
    """Spec for media that address KV data by block ids."""

    def __init__(self, block_ids: list[int]):
        self.block_ids = np.array(block_ids, dtype=np.int64)

    def __repr__(self) -> str:
        return repr(self.block_ids)


class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "GPU"


class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "CPU"
