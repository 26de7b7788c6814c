"""The handler interface and the worker that dispatches jobs to handlers."""

from abc import ABC, abstractmethod
from typing import NamedTuple


class TransferResult(NamedTuple):
    job_id: int
    success: bool


class OffloadingHandler(ABC):
    @abstractmethod
    def transfer_async(self, job_id: int, transfer_spec) -> bool: ...

    @abstractmethod
    def get_finished(self) -> list: ...

    @abstractmethod
    def wait(self, job_ids: set) -> None: ...


class OffloadingWorker:
    def __init__(self):
        self.handlers = []
        self.transfer_type_to_handler = {}

    def register_handler(self, src_cls, dst_cls, handler):
        self.transfer_type_to_handler[(src_cls.medium(), dst_cls.medium())] = handler
        if handler not in self.handlers:
            self.handlers.append(handler)

    def transfer_async(self, job_id, spec) -> bool:
        src, dst = spec
        handler = self.transfer_type_to_handler[(src.medium(), dst.medium())]
        return handler.transfer_async(job_id, spec)

    def get_finished(self):
        finished = []
        for handler in self.handlers:
            finished.extend(handler.get_finished())
        return finished

    def wait(self, job_ids):
        for handler in self.handlers:
            handler.wait(job_ids)
