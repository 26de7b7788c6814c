import logging
import queue
import struct
import threading

import cupy as cp

from .config import CHUNK_HEADER_FMT, SenderConfig, TransferStatus
from .staging import KVStager, PinnedStagingPool, StagedChunk
from .transport import TcpTransport

logger = logging.getLogger(__name__)


class KVSender:
    """Prefill-side sender: stages KV blocks to pinned memory and ships them
    to the decode instance from a background thread."""

    def __init__(self, config: SenderConfig, transport: TcpTransport | None = None):
        self.config = config
        self._queue: queue.Queue[StagedChunk | None] = queue.Queue()
        self._pool = PinnedStagingPool(config.num_staging_buffers, config.chunk_bytes)
        self._stager = KVStager(self._pool, config.chunk_bytes, self._queue, config.acquire_timeout_s)
        self._transport = transport or TcpTransport(config.peer_host, config.peer_port, config.send_timeout_s)
        self._status: dict[str, TransferStatus] = {}
        self._status_lock = threading.Lock()
        self._thread = threading.Thread(target=self._send_loop, name="kv-sender", daemon=True)
        self._thread.start()

    def submit(self, request_id: str, kv_cache: cp.ndarray, block_ids: list[int]) -> None:
        """Called by the prefill engine right after the forward pass."""
        ready = cp.cuda.Event(disable_timing=True)
        ready.record(cp.cuda.get_current_stream())
        with self._status_lock:
            self._status[request_id] = TransferStatus.PENDING
        self._stager.stage(request_id, [kv_cache[b] for b in block_ids], ready)

    def status(self, request_id: str) -> TransferStatus | None:
        with self._status_lock:
            return self._status.get(request_id)

    def _send_loop(self) -> None:
        while True:
            chunk = self._queue.get()
            if chunk is None:
                break
            try:
                # expect: KVG003
                payload = bytes(chunk.host_view)
                # the copy engine must be done with the slot before the stager reuses it
                chunk.done_event.synchronize()
                self._pool.release(chunk.slot)
                header = struct.pack(
                    CHUNK_HEADER_FMT, chunk.request_id.encode()[:16], chunk.chunk_index, chunk.num_chunks, len(payload)
                )
                self._transport.send(header, payload)
            except (OSError, TimeoutError):
                logger.exception("KV transfer failed for %s", chunk.request_id)
                with self._status_lock:
                    self._status[chunk.request_id] = TransferStatus.FAILED
                continue
            if chunk.chunk_index == chunk.num_chunks - 1:
                with self._status_lock:
                    if self._status.get(chunk.request_id) is TransferStatus.PENDING:
                        self._status[chunk.request_id] = TransferStatus.SENT

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        self._transport.close()
