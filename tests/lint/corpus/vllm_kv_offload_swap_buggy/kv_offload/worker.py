from __future__ import annotations

from abc import ABC, abstractmethod

from vllm.logger import init_logger

from .mediums import TransferResult, TransferSpec

logger = init_logger(__name__)


class OffloadingHandler(ABC):
    @abstractmethod
    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        """Initiate the transfer; return False if it could not be submitted."""

    @abstractmethod
    def get_finished(self) -> list[TransferResult]:
        """Return (job_id, success) for the transfers completed since last call."""


class OffloadingWorker:
    """Routes each transfer to the handler registered for its mediums."""

    def __init__(self) -> None:
        self.handlers: set[OffloadingHandler] = set()
        self.transfer_type_to_handler: dict[tuple[str, str], OffloadingHandler] = {}

    def register_handler(self, src_cls, dst_cls, handler: OffloadingHandler) -> None:
        key = (src_cls.medium(), dst_cls.medium())
        assert key not in self.transfer_type_to_handler
        self.handlers.add(handler)
        self.transfer_type_to_handler[key] = handler

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src, dst = spec
        handler = self.transfer_type_to_handler[(src.medium(), dst.medium())]
        try:
            ok = handler.transfer_async(job_id, spec)
        except Exception:
            logger.warning("Exception in %r transfer %d", spec, job_id, exc_info=True)
            return False
        if not ok:
            logger.warning("Failed to submit %r transfer %d", spec, job_id)
        return ok

    def get_finished(self) -> list[TransferResult]:
        finished: list[TransferResult] = []
        for handler in self.handlers:
            finished.extend(handler.get_finished())
        return finished
