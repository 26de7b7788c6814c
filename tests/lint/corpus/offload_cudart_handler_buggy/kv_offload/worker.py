from abc import ABC, abstractmethod
from typing import NamedTuple

import numpy as np


class BlockIDsLoadStoreSpec(NamedTuple):
    medium: str
    block_ids: np.ndarray


# a single transfer spec (src_blocks_spec, dst_blocks_spec)
TransferSpec = tuple[BlockIDsLoadStoreSpec, BlockIDsLoadStoreSpec]
# transfers are forwarded to handlers by (src_medium, dst_medium)
TransferType = tuple[str, str]


class TransferResult(NamedTuple):
    job_id: int
    success: bool
    transfer_size: int


class OffloadingHandler(ABC):
    @abstractmethod
    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool: ...

    @abstractmethod
    def get_finished(self) -> list[TransferResult]: ...

    @abstractmethod
    def wait(self, job_ids: set[int]) -> None: ...


class OffloadingWorker:
    """Routes transfer jobs from the connector to the handler of their direction."""

    def __init__(self) -> None:
        self.handlers: set[OffloadingHandler] = set()
        self.transfer_type_to_handler: dict[TransferType, OffloadingHandler] = {}

    def register_handler(self, src_cls: str, dst_cls: str, handler: OffloadingHandler) -> None:
        self.transfer_type_to_handler[(src_cls, dst_cls)] = handler
        self.handlers.add(handler)

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src, dst = spec
        handler = self.transfer_type_to_handler[(src.medium, dst.medium)]
        return handler.transfer_async(job_id, spec)

    def get_finished(self) -> list[TransferResult]:
        return [result for handler in self.handlers for result in handler.get_finished()]

    def wait(self, job_ids: set[int]) -> None:
        for handler in self.handlers:
            handler.wait(job_ids)
