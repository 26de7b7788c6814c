from __future__ import annotations

import logging
from typing import TYPE_CHECKING, NamedTuple

from kv_offload.mediums import TransferSpec

if TYPE_CHECKING:
    from kv_offload.cpu_gpu import SingleDirectionOffloadingHandler

logger = logging.getLogger(__name__)


class TransferResult(NamedTuple):
    job_id: int
    success: bool
    num_blocks: int
    transfer_type: tuple[str, str]


class OffloadingWorker:
    """Routes transfer jobs to the handler registered for their mediums."""

    def __init__(self) -> None:
        self.handlers: set["SingleDirectionOffloadingHandler"] = set()
        self.transfer_type_to_handler: dict[tuple[str, str], "SingleDirectionOffloadingHandler"] = {}

    def register_handler(self, handler: "SingleDirectionOffloadingHandler") -> None:
        self.transfer_type_to_handler[handler.transfer_type] = handler
        self.handlers.add(handler)

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        src, dst = spec
        handler = self.transfer_type_to_handler[(src.medium, dst.medium)]
        try:
            return handler.transfer_async(job_id, spec)
        except Exception:
            logger.exception("transfer %d (%s -> %s) failed", job_id, src.medium, dst.medium)
            return False

    def get_finished(self) -> list[TransferResult]:
        finished: list[TransferResult] = []
        for handler in self.handlers:
            finished.extend(handler.get_finished())
        return finished

    def wait(self, job_ids: set[int]) -> None:
        for handler in self.handlers:
            handler.wait(job_ids)
