# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import List
import logging
import queue
import socket
import struct
import threading

# Third Party
import cupy

# First Party
from .buffers import PinnedBufferPool
from .constants import P2P_HEADER_FORMAT, P2P_PINNED_POOL_BYTES, P2P_QUEUE_TIMEOUT_S
from .streams import get_transfer_stream

logger = logging.getLogger(__name__)


@dataclass
class SendJob:
    request_id: str
    chunk_idx: int
    kv_chunk: cupy.ndarray
    ready_event: cupy.cuda.Event
    is_last: bool


class KVSender:
    def __init__(self, channel: socket.socket, device_id: int, chunk_bytes: int):
        self.channel = channel
        self.device_id = device_id
        self.stream = get_transfer_stream(device_id)
        self.pool = PinnedBufferPool(P2P_PINNED_POOL_BYTES, chunk_bytes)
        self.queue: "queue.Queue[SendJob]" = queue.Queue()
        self._stop = threading.Event()
        self.thread = threading.Thread(
            target=self._send_loop, name="lmc-p2p-send", daemon=True
        )
        self.thread.start()

    def submit(self, request_id: str, chunks: List[cupy.ndarray]) -> None:
        for idx, chunk in enumerate(chunks):
            ready = cupy.cuda.Event(block=False, disable_timing=True)
            ready.record(self.stream)
            self.queue.put(
                SendJob(request_id, idx, chunk, ready, idx == len(chunks) - 1)
            )

    def _send_one(self, job: SendJob) -> None:
        buf = self.pool.acquire()
        try:
            nbytes = job.kv_chunk.nbytes
            host = buf[:nbytes].view(job.kv_chunk.dtype).reshape(job.kv_chunk.shape)
            self.stream.wait_event(job.ready_event)
            with self.stream:
                # expect: KVG001
                cupy.asnumpy(job.kv_chunk, stream=self.stream, out=host, blocking=False)
            if job.is_last:
                self.stream.synchronize()
            # expect: KVG003
            payload = host.tobytes()
            header = struct.pack(
                P2P_HEADER_FORMAT,
                job.request_id.encode(),
                job.chunk_idx,
                len(payload),
                0,
                job.is_last,
            )
            self.channel.sendall(header + payload)
        finally:
            self.pool.release(buf)

    def _send_loop(self) -> None:
        with cupy.cuda.Device(self.device_id):
            while not self._stop.is_set():
                try:
                    job = self.queue.get(timeout=P2P_QUEUE_TIMEOUT_S)
                except queue.Empty:
                    continue
                try:
                    self._send_one(job)
                except OSError:
                    logger.exception("Failed to send chunk %d of %s", job.chunk_idx, job.request_id)

    def close(self) -> None:
        self._stop.set()
        self.thread.join(timeout=5)
