from __future__ import annotations

import logging
import queue
import socket
import struct
import threading
import zlib
from dataclasses import dataclass
from typing import Callable, Optional

import torch

from .cudart import CudaEvent

logger = logging.getLogger("tensorrt_llm")

_HEADER = struct.Struct("<QQI")


@dataclass
class SendTask:
    request_id: int
    staging: torch.Tensor
    copied: CudaEvent


class KvCacheSender(threading.Thread):

    def __init__(self, connect: Callable[[int], socket.socket]):
        super().__init__(name="kv_cache_sender", daemon=True)
        self._connect = connect
        self._queue: queue.Queue[Optional[SendTask]] = queue.Queue()
        self._lock = threading.Lock()
        self._completed: set[int] = set()

    def submit(self, task: SendTask) -> None:
        self._queue.put(task)

    def shutdown(self) -> None:
        self._queue.put(None)
        self.join()

    def pop_completed(self) -> set[int]:
        with self._lock:
            done, self._completed = self._completed, set()
        return done

    def run(self) -> None:
        while True:
            task = self._queue.get()
            if task is None:
                return
            task.copied.synchronize()
            payload = task.staging.numpy()
            checksum = zlib.crc32(payload)
            header = _HEADER.pack(task.request_id, payload.nbytes, checksum)
            with self._connect(task.request_id) as conn:
                conn.sendall(header)
                conn.sendall(memoryview(payload))
            task.copied.destroy()
            logger.info("sent %d bytes of KV cache for request %d",
                         payload.nbytes, task.request_id)
            with self._lock:
                self._completed.add(task.request_id)
