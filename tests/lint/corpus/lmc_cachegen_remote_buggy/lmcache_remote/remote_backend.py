# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, Optional
import logging
import socket
import threading

# Third Party
import cupy
import torch

# First Party
from lmcache_remote.config import RemoteBackendConfig
from lmcache_remote.cuda_context import record_compute_ready
from lmcache_remote.serde import CacheGenLiteSerializer, EncodedChunk

logger = logging.getLogger(__name__)


class RemoteConnection:
    """Tiny length-prefixed PUT protocol to an lmcache server."""

    def __init__(self, host: str, port: int, timeout: float):
        self._sock = socket.create_connection((host, port), timeout=timeout)
        self._lock = threading.Lock()

    def put(self, key: str, blob: bytes) -> None:
        k = key.encode()
        with self._lock:
            self._sock.sendall(b"PUT " + len(k).to_bytes(4, "little") + len(blob).to_bytes(8, "little"))
            self._sock.sendall(k)
            self._sock.sendall(blob)

    def close(self) -> None:
        self._sock.close()


class RemoteBackend:
    def __init__(self, config: RemoteBackendConfig):
        self.config = config
        self.serde = CacheGenLiteSerializer(config.quant_bits)
        host, port = config.host_port
        self.connection = RemoteConnection(host, port, config.put_timeout_s)
        self.put_tasks: Dict[str, Future] = {}
        self._executor = ThreadPoolExecutor(
            max_workers=config.num_put_workers, thread_name_prefix="lmc-remote-put"
        )

    def submit_put_task(self, key: str, kv: torch.Tensor) -> Optional[Future]:
        if key in self.put_tasks:
            return None
        ready = record_compute_ready()
        enc = self.serde.encode_async(cupy.from_dlpack(kv.detach()), ready)
        if not self.config.pipelined_put:
            enc.copied.synchronize()
            self._put_blocking(key, enc)
            return None
        future = self._executor.submit(self._put_blocking, key, enc)
        self.put_tasks[key] = future
        future.add_done_callback(lambda _f, k=key: self.put_tasks.pop(k, None))
        return future

    def _put_blocking(self, key: str, enc: EncodedChunk) -> None:
        # expect: KVG003
        blob = enc.header() + enc.scales.tobytes() + enc.payload.tobytes()
        try:
            self.connection.put(key, blob)
        except OSError:
            logger.exception("Remote put of %s failed", key)

    def close(self) -> None:
        self._executor.shutdown(wait=True)
        self.connection.close()
