"""Local disk backend: chunks are staged in pinned host memory on a put stream and written
as safetensors files by a background put thread, so that ``store`` returns without
waiting for the disk."""

import logging
import os
import queue
import threading
from collections import OrderedDict
from typing import Optional

import torch
from safetensors.torch import load_file, save_file

from lmcache_lite.config import LMCacheEngineConfig

logger = logging.getLogger(__name__)


class LocalBackendEndSignal:
    pass


class LMCLocalDiskBackend:
    def __init__(self, config: LMCacheEngineConfig):
        self.dir = config.local_dir
        os.makedirs(self.dir, exist_ok=True)
        self.capacity = config.max_local_disk_chunks
        self.index: "OrderedDict[str, str]" = OrderedDict()
        self.index_lock = threading.Lock()
        self.put_stream = torch.cuda.Stream()
        self.put_queue: "queue.Queue" = queue.Queue()
        self.put_thread = threading.Thread(target=self.put_worker, name="lmc-disk-put", daemon=True)
        self.put_thread.start()

    def _key_to_path(self, key: str) -> str:
        return os.path.join(self.dir, key.replace("/", "-") + ".safetensors")

    def contains(self, key: str) -> bool:
        with self.index_lock:
            return key in self.index

    def put(self, key: str, kv_chunk: torch.Tensor) -> None:
        """Stage ``kv_chunk`` (on the GPU) to pinned memory and hand it to the put thread."""
        host = torch.empty(kv_chunk.shape, dtype=kv_chunk.dtype, pin_memory=True)
        # the chunk was produced by the engine on the caller's stream
        self.put_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.put_stream):
            host.copy_(kv_chunk, non_blocking=True)
            staged = torch.cuda.Event()
            staged.record()
        kv_chunk.record_stream(self.put_stream)
        self.put_queue.put((key, host, staged))

    def put_worker(self) -> None:
        while True:
            item = self.put_queue.get()
            if isinstance(item, LocalBackendEndSignal):
                break
            key, host, staged = item
            # the staging copy runs on the put stream: wait for it, not for this
            # thread's current stream
            staged.synchronize()
            path = self._key_to_path(key)
            save_file({"kv_chunk": host}, path)
            with self.index_lock:
                self.index[key] = path
                while len(self.index) > self.capacity:
                    _, old = self.index.popitem(last=False)
                    os.remove(old)

    def get(self, key: str) -> Optional[torch.Tensor]:
        with self.index_lock:
            path = self.index.get(key)
        if path is None:
            return None
        return load_file(path)["kv_chunk"]

    def close(self) -> None:
        self.put_queue.put(LocalBackendEndSignal())
        self.put_thread.join()
