import logging
import queue
import socket
from dataclasses import dataclass
from typing import Callable, Optional

import torch

from . import cudart
from .config import CacheTransceiverConfig
from .send_worker import SendWorker

logger = logging.getLogger(__name__)


@dataclass
class TransferTask:
    request_id: int
    src_ptr: int
    nbytes: int
    ready_event: Optional[object]
    on_done: Callable[[bool], None]


class CacheSender:
    """Hands finished context requests to the sender thread after the forward pass."""

    def __init__(self, config: CacheTransceiverConfig, conn: socket.socket, release_blocks):
        self._config = config
        self._release_blocks = release_blocks
        self._tasks: "queue.Queue[Optional[TransferTask]]" = queue.Queue()
        self._worker = SendWorker(self._tasks, conn, config.staging_bytes)
        self._worker.start()
        self.in_flight: dict[int, TransferTask] = {}

    def respond_and_send_async(self, request, kv_cache_manager) -> None:
        src_ptr, nbytes = kv_cache_manager.get_contiguous_kv_span(request)
        compute_stream = torch.cuda.current_stream().cuda_stream
        ready_event = None
        if self._config.overlap_transfer:
            ready_event = cudart.event_create()
            cudart.event_record(ready_event, compute_stream)
        else:
            cudart.stream_synchronize(compute_stream)
        task = TransferTask(request.py_request_id, src_ptr, nbytes, ready_event,
                            lambda ok, rid=request.py_request_id: self._finish(rid, ok))
        self.in_flight[task.request_id] = task
        self._tasks.put(task)

    def _finish(self, request_id: int, ok: bool) -> None:
        self.in_flight.pop(request_id, None)
        self._release_blocks(request_id)
        logger.debug("context cache of request %d sent: %s", request_id, ok)

    def shutdown(self) -> None:
        self._tasks.put(None)
        self._worker.join(timeout=self._config.send_timeout_s)
