from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np


@dataclass
class BlockIDsLoadStoreSpec:
    block_ids: np.ndarray
    medium: str


class GPULoadStoreSpec(BlockIDsLoadStoreSpec):
    def __init__(self, block_ids: np.ndarray):
        super().__init__(block_ids=block_ids, medium="GPU")


class CPULoadStoreSpec(BlockIDsLoadStoreSpec):
    def __init__(self, block_ids: np.ndarray):
        super().__init__(block_ids=block_ids, medium="CPU")


TransferSpec = tuple[BlockIDsLoadStoreSpec, BlockIDsLoadStoreSpec]
TransferType = tuple[str, str]


@dataclass
class TransferResult:
    job_id: int
    success: bool
    transfer_size: int
    transfer_time: float


class OffloadingHandler(ABC):
    @abstractmethod
    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool: ...

    @abstractmethod
    def get_finished(self) -> list[TransferResult]: ...
