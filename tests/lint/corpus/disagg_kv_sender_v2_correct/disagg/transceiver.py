import logging
import queue
import struct
import threading
from dataclasses import dataclass
from typing import Callable, List, Optional

import cupy
import torch

from .config import (
    CHUNK_HEADER_FORMAT,
    SEND_QUEUE_MAXSIZE,
    TRANSFER_CHUNK_BLOCKS,
    CacheTransceiverConfig,
    DisaggState,
)
from .kv_gather import gather_blocks_to_host, kv_pool_view
from .staging import PinnedStagingPool

logger = logging.getLogger(__name__)


@dataclass
class _SendTask:
    request: object
    block_ids: List[int]
    ready: torch.Event


class KvCacheTransceiver:
    def __init__(
        self,
        kv_pool: torch.Tensor,
        connect: Callable[[str], object],
        config: CacheTransceiverConfig,
    ):
        self._config = config
        self._pool_view = kv_pool_view(kv_pool)
        self._staging = PinnedStagingPool(
            config.num_staging_buffers, TRANSFER_CHUNK_BLOCKS, self._pool_view.shape[1]
        )
        self._connect = connect
        self._send_queue: "queue.Queue[Optional[_SendTask]]" = queue.Queue(
            maxsize=SEND_QUEUE_MAXSIZE
        )
        self._sender = threading.Thread(
            target=self._send_loop, name="kv-cache-sender", daemon=True
        )
        self._sender.start()

    def respond_and_send_async(self, request) -> None:
        """Called by the executor once the context phase of ``request`` is enqueued."""
        ready = torch.Event()
        ready.record(torch.accelerator.current_stream())
        request.py_disagg_state = DisaggState.TRANS_IN_PROGRESS
        self._send_queue.put(_SendTask(request, list(request.py_cache_block_ids), ready))

    def check_context_transfer_status(self, requests) -> List[object]:
        return [
            r for r in requests if r.py_disagg_state == DisaggState.TRANS_COMPLETE
        ]

    def _send_loop(self) -> None:
        cupy.cuda.Device(self._config.device_id).use()
        stream = cupy.cuda.Stream(non_blocking=True)
        while True:
            task = self._send_queue.get()
            if task is None:
                break
            try:
                self._send_one(task, stream)
                task.request.py_disagg_state = DisaggState.TRANS_COMPLETE
            except Exception:
                logger.exception("KV cache send failed for %s", task.request.py_request_id)
                task.request.py_disagg_state = DisaggState.TRANS_ERROR

    def _send_one(self, task: _SendTask, stream: cupy.cuda.Stream) -> None:
        conn = self._connect(task.request.py_peer_endpoint)
        request_id = task.request.py_request_id
        task.ready.synchronize()
        for start in range(0, len(task.block_ids), TRANSFER_CHUNK_BLOCKS):
            chunk = task.block_ids[start : start + TRANSFER_CHUNK_BLOCKS]
            staging = self._staging.acquire()
            try:
                with stream:
                    num_blocks = gather_blocks_to_host(self._pool_view, chunk, staging, stream)
                stream.synchronize()
                payload = staging[:num_blocks].tobytes()
                conn.sendall(struct.pack(CHUNK_HEADER_FORMAT, request_id, start, num_blocks))
                conn.sendall(payload)
            finally:
                self._staging.release(staging)

    def shutdown(self) -> None:
        self._send_queue.put(None)
        self._sender.join()
