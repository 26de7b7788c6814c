"""Where a job's blocks live."""

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np


@dataclass
class BlockIDsLoadStoreSpec(ABC):
    block_ids: np.ndarray

    @staticmethod
    @abstractmethod
    def medium() -> str: ...

    def __len__(self):
        return int(self.block_ids.size)


class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "GPU"


class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    @staticmethod
    def medium() -> str:
        return "CPU"
