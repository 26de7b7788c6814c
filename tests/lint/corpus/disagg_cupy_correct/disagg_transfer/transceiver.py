import logging
import queue
import threading
import zlib
from dataclasses import dataclass
from typing import Dict, List, Optional

import cupy
import numpy

from .config import KV_WIRE_VERSION, NUM_STAGING_BUFFERS, SEND_QUEUE_POLL_S, CacheTransceiverConfig
from .connection import TcpKvConnection
from .formatter import CacheFormatter
from .streams import get_send_stream, torch_compute_stream

logger = logging.getLogger(__name__)


@dataclass
class _SendTask:
    request_id: int
    staging: numpy.ndarray
    num_blocks: int
    nbytes: int
    done: cupy.cuda.Event
    crc32: Optional[int] = None


class KvCacheTransceiver:
    """Context-phase side: ships finished prefill KV to the generation instance."""

    def __init__(self, kv_cache_manager, connection: TcpKvConnection,
                 config: CacheTransceiverConfig):
        self.kv_cache_manager = kv_cache_manager
        self.connection = connection
        self.config = config
        kv_pool = cupy.asarray(kv_cache_manager.get_primary_pool())
        self.formatter = CacheFormatter(kv_pool, config.max_blocks_per_request)
        self._free_staging: "queue.Queue[numpy.ndarray]" = queue.Queue()
        for _ in range(NUM_STAGING_BUFFERS):
            self._free_staging.put(self.formatter.new_staging_buffer())
        self._send_queue: "queue.Queue[_SendTask]" = queue.Queue()
        self._completed: "queue.Queue[int]" = queue.Queue()
        self._in_flight: Dict[int, object] = {}
        self._shutdown = threading.Event()
        self._sender = threading.Thread(target=self._send_loop, name="kv_sender", daemon=True)
        self._sender.start()

    def respond_and_send_async(self, req) -> None:
        block_ids = self.kv_cache_manager.get_cache_block_ids(req.py_request_id)
        staging = self._free_staging.get(timeout=self.config.send_timeout_s)
        stream = get_send_stream()
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record(torch_compute_stream())
        stream.wait_event(ready)
        nbytes = self.formatter.gather(block_ids, staging, stream)
        done = cupy.cuda.Event(disable_timing=True)
        done.record(stream)
        task = _SendTask(req.py_request_id, staging, len(block_ids), nbytes, done)
        self._in_flight[req.py_request_id] = req
        self._send_queue.put(task)

    def _send_loop(self) -> None:
        while not self._shutdown.is_set():
            try:
                task = self._send_queue.get(timeout=SEND_QUEUE_POLL_S)
            except queue.Empty:
                continue
            task.done.synchronize()
            if self.config.verify_checksum:
                task.crc32 = zlib.crc32(task.staging[: task.num_blocks])
            payload = task.staging[: task.num_blocks].tobytes()
            header = {
                "version": KV_WIRE_VERSION,
                "request_id": task.request_id,
                "num_blocks": task.num_blocks,
                "crc32": task.crc32,
            }
            try:
                self.connection.send(header, payload)
            except OSError:
                logger.exception("sending KV of request %d failed", task.request_id)
            self._free_staging.put(task.staging)
            self._completed.put(task.request_id)

    def check_context_transfer_status(self) -> List[int]:
        finished = []
        while True:
            try:
                request_id = self._completed.get_nowait()
            except queue.Empty:
                return finished
            self._in_flight.pop(request_id, None)
            finished.append(request_id)

    def shutdown(self) -> None:
        self._shutdown.set()
        self._sender.join()
        self.connection.close()
