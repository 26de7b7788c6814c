import logging
import socket
import struct
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import List, Tuple

from disagg import cudart
from disagg.buffer_manager import CacheTransBufferManager
from disagg.formatter import CacheFormatter

logger = logging.getLogger(__name__)


@dataclass
class TransferRequest:
    request_id: int
    block_ptrs: List[int]
    block_bytes: int
    peer: Tuple[str, int]
    ready_event: int


class SocketComm:
    def send(self, request_id: int, peer: Tuple[str, int], payload: bytes) -> None:
        with socket.create_connection(peer) as sock:
            sock.sendall(struct.pack("<QQ", request_id, len(payload)))
            sock.sendall(payload)


class DataSender:
    def __init__(self, buffers: CacheTransBufferManager, formatter: CacheFormatter, comm: SocketComm):
        self._buffers = buffers
        self._formatter = formatter
        self._comm = comm
        self._streams = [cudart.stream_create() for _ in range(buffers.num_buffers)]
        self._executor = ThreadPoolExecutor(max_workers=buffers.num_buffers, thread_name_prefix="cache-sender")

    def send_async(self, request: TransferRequest) -> "Future[int]":
        return self._executor.submit(self._send, request)

    def _send(self, request: TransferRequest) -> int:
        idx = self._buffers.assign_buffer_index()
        stream = self._streams[idx]
        try:
            cudart.stream_wait_event(stream, request.ready_event)
            nbytes = self._formatter.format(request.block_ptrs, request.block_bytes,
                                            self._buffers.buffer_ptr(idx), self._buffers.buffer_bytes, stream)
            cudart.stream_synchronize(stream)
            payload = bytes(self._buffers.view(idx, nbytes))
        finally:
            self._buffers.free_buffer_index(idx)
        self._comm.send(request.request_id, request.peer, payload)
        logger.info("sent %d bytes of KV cache for request %d", nbytes, request.request_id)
        return nbytes

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
