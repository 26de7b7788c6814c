import logging
from typing import Dict, List, Tuple

from kv_offload.cpu_gpu import CpuGpuOffloadingHandler
from kv_offload.mediums import TransferType

logger = logging.getLogger(__name__)


class OffloadingWorker:
    def __init__(self) -> None:
        self.handlers: Dict[TransferType, CpuGpuOffloadingHandler] = {}
        self.job_types: Dict[int, TransferType] = {}

    def register_handler(self, src_medium: str, dst_medium: str, handler: CpuGpuOffloadingHandler) -> None:
        self.handlers[(src_medium, dst_medium)] = handler

    def transfer_async(self, job_id: int, spec) -> bool:
        src, dst = spec
        transfer_type = (src.medium(), dst.medium())
        handler = self.handlers[transfer_type]
        try:
            ok = handler.transfer_async(job_id, transfer_type, spec)
        except Exception:
            logger.exception("Transfer %d (%s) failed to submit", job_id, transfer_type)
            return False
        if ok:
            self.job_types[job_id] = transfer_type
        return ok

    def get_finished(self) -> List[Tuple[int, bool]]:
        finished: List[Tuple[int, bool]] = []
        for handler in {id(h): h for h in self.handlers.values()}.values():
            finished.extend(handler.get_finished())
        for job_id, _ in finished:
            self.job_types.pop(job_id, None)
        return finished
