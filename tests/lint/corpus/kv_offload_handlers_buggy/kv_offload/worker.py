# SPDX-License-Identifier: Apache-2.0
from vllm.logger import init_logger

from kv_offload.handlers import CpuGpuOffloadingHandlers, SingleDirectionOffloadingHandler
from kv_offload.spec import TransferResult, TransferSpec

logger = init_logger(__name__)


class OffloadingWorker:
    """Worker-side half of the offloading connector.

    The scheduler side decides which blocks to store and load; the worker
    turns each decision into one asynchronous job and reports completions.
    """

    def __init__(self, handlers: CpuGpuOffloadingHandlers):
        self._handlers = handlers
        self._job_kinds: dict[int, str] = {}

    def _handler_for(self, spec: TransferSpec) -> SingleDirectionOffloadingHandler:
        src_spec, dst_spec = spec
        if (src_spec.medium, dst_spec.medium) == ("GPU", "CPU"):
            return self._handlers.gpu_to_cpu_handler
        if (src_spec.medium, dst_spec.medium) == ("CPU", "GPU"):
            return self._handlers.cpu_to_gpu_handler
        raise ValueError(f"Unsupported transfer {src_spec.medium}->{dst_spec.medium}")

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        handler = self._handler_for(spec)
        self._job_kinds[job_id] = "store" if handler.gpu_to_cpu else "load"
        return handler.transfer_async(job_id, spec)

    def get_finished(self) -> list[TransferResult]:
        finished: list[TransferResult] = []
        for handler in (self._handlers.gpu_to_cpu_handler, self._handlers.cpu_to_gpu_handler):
            for result in handler.get_finished():
                kind = self._job_kinds.pop(result.job_id, "?")
                logger.debug(
                    "offload %s job %d: %d bytes in %.3f ms",
                    kind,
                    result.job_id,
                    result.transfer_size,
                    result.transfer_time * 1e3,
                )
                finished.append(result)
        return finished
