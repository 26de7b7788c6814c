import logging
import socket
from concurrent.futures import Future

from .cuda_utils import record_on
from .layout import KvPoolLayout
from .sender import KvCacheSender

logger = logging.getLogger(__name__)


class KvCacheTransceiver:
    """Context-side half: ships finished context KV blocks to the peer."""

    def __init__(self, layout: KvPoolLayout, conn: socket.socket,
                 compute_stream_handle: int, device_ordinal: int = 0):
        self._compute = compute_stream_handle
        self._sender = KvCacheSender(layout, conn, device_ordinal)
        self._pending: dict[int, Future] = {}

    def respond_and_send_async(self, request_id: int,
                               block_ids: list[int]) -> Future:
        ready = record_on(self._compute)
        future = self._sender.submit(request_id, block_ids, ready)
        self._pending[request_id] = future
        return future

    def check_context_transfer_status(self) -> list[int]:
        finished = [rid for rid, fut in self._pending.items() if fut.done()]
        for rid in finished:
            self._pending.pop(rid).result()
        if finished:
            logger.debug("context transfers complete: %s", finished)
        return finished

    def shutdown(self) -> None:
        for fut in self._pending.values():
            fut.result()
        self._sender.close()
