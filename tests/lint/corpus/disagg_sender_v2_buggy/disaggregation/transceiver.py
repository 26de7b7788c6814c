import logging
import threading
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict, List, Tuple

import cupy
import numpy as np
import torch

from .constants import DEFAULT_SENDER_THREADS
from .sender import BlockHeader, TcpBlockSender
from .staging import allocate_staging, stage_blocks

logger = logging.getLogger(__name__)


@dataclass
class TransferRequest:
    request_id: int
    block_ids: List[int]
    peer: Tuple[str, int]


class KvCacheTransceiver:
    """Context-side sender: stages finished context KV blocks to host and ships them."""

    def __init__(
        self,
        kv_pool: torch.Tensor,
        sender: TcpBlockSender,
        enable_checksum: bool = False,
        max_workers: int = DEFAULT_SENDER_THREADS,
    ):
        num_blocks = kv_pool.shape[0]
        self._kv_pool = cupy.from_dlpack(kv_pool.view(torch.uint8).view(num_blocks, -1))
        self._block_nbytes = self._kv_pool.shape[1]
        self._stream = cupy.cuda.Stream(non_blocking=True)
        self._sender = sender
        self._enable_checksum = enable_checksum
        self._executor = ThreadPoolExecutor(max_workers=max_workers, thread_name_prefix="kv-sender")
        self._futures: Dict[int, Future] = {}
        self._completed: List[int] = []
        self._lock = threading.Lock()

    def respond_and_send_async(self, req: TransferRequest) -> None:
        staging = allocate_staging(len(req.block_ids), self._block_nbytes)
        stage_blocks(self._kv_pool, req.block_ids, staging, self._stream)
        done = self._stream.record()
        future = self._executor.submit(self._send, req, staging, done)
        future.add_done_callback(lambda f, rid=req.request_id: self._on_sent(rid, f))
        self._futures[req.request_id] = future

    def _send(self, req: TransferRequest, staging: np.ndarray, done: cupy.cuda.Event) -> int:
        header = BlockHeader(req.request_id, len(req.block_ids), self._block_nbytes)
        if self._enable_checksum:
            # expect: KVG003
            header.checksum = zlib.crc32(staging)
        done.synchronize()
        return self._sender.send_blocks(req.peer, header, staging)

    def _on_sent(self, request_id: int, future: Future) -> None:
        exc = future.exception()
        if exc is not None:
            logger.error("KV transfer of request %d failed: %s", request_id, exc)
        with self._lock:
            self._completed.append(request_id)

    def check_context_transfer_status(self) -> List[int]:
        """Request ids whose blocks may now be released by the KV cache manager."""
        with self._lock:
            done, self._completed = self._completed, []
        for request_id in done:
            self._futures.pop(request_id, None)
        return done

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
        self._sender.close()
