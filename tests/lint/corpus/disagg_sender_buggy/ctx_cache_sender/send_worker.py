import ctypes
import logging
import queue
import socket
import struct
import threading
import zlib

from . import cudart

logger = logging.getLogger(__name__)

_HEADER = struct.Struct("<QQI")  # request_id, nbytes, crc32


class SendWorker(threading.Thread):
    """Stages each task's KV bytes through pinned memory and streams them to the peer."""

    def __init__(self, tasks: "queue.Queue", conn: socket.socket, staging_bytes: int):
        super().__init__(name="ctx-cache-sender", daemon=True)
        self._tasks = tasks
        self._conn = conn
        self._stream = cudart.stream_create()
        self._staging = cudart.host_alloc(staging_bytes)
        self._staging_bytes = staging_bytes

    def run(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                break
            try:
                self._send_one(task)
            except Exception:
                logger.exception("transfer of request %d failed", task.request_id)
                task.on_done(False)
            finally:
                self._tasks.task_done()

    def _send_one(self, task) -> None:
        if task.nbytes > self._staging_bytes:
            raise ValueError(f"request {task.request_id} needs {task.nbytes} staging bytes")
        if task.ready_event is not None:
            cudart.stream_wait_event(self._stream, task.ready_event)
        cudart.memcpy_d2h_async(self._staging, task.src_ptr, task.nbytes, self._stream)
        view = (ctypes.c_char * task.nbytes).from_address(self._staging.value)
        # expect: KVG003
        header = _HEADER.pack(task.request_id, task.nbytes, zlib.crc32(view))
        cudart.stream_synchronize(self._stream)
        self._conn.sendall(header)
        self._conn.sendall(memoryview(view))
        if task.ready_event is not None:
            cudart.event_destroy(task.ready_event)
        task.on_done(True)
