from __future__ import annotations

import logging
import os
import threading
import zlib
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Optional

import torch

from .config import LocalDiskConfig
from .pinned_pool import PinnedBufferPool
from .utils import CacheEngineKey, DiskCacheMetadata, key_to_path

logger = logging.getLogger(__name__)


@dataclass
class _PutTask:
    key: CacheEngineKey
    buffer: torch.Tensor
    nbytes: int
    shape: torch.Size
    dtype: torch.dtype
    copy_done: torch.cuda.Event


class LocalDiskBackend:
    def __init__(self, config: LocalDiskConfig, device: torch.device) -> None:
        self.config = config
        self.dict: OrderedDict[CacheEngineKey, DiskCacheMetadata] = OrderedDict()
        self.put_tasks: set[CacheEngineKey] = set()
        self.current_bytes = 0
        self.lock = threading.Lock()
        self.pool = PinnedBufferPool(config.num_pinned_slots, config.pinned_slot_bytes)
        self.d2h_stream = torch.cuda.Stream(device=device)
        self.executor = ThreadPoolExecutor(max_workers=config.num_writer_threads,
                                           thread_name_prefix="lmcache-disk-writer")
        os.makedirs(config.path, exist_ok=True)

    def contains(self, key: CacheEngineKey) -> bool:
        with self.lock:
            return key in self.dict

    def exists_in_put_tasks(self, key: CacheEngineKey) -> bool:
        with self.lock:
            return key in self.put_tasks

    def submit_put_task(self, key: CacheEngineKey,
                        kv_chunk: torch.Tensor) -> Optional[Future]:
        with self.lock:
            if key in self.dict or key in self.put_tasks:
                return None
            self.put_tasks.add(key)

        nbytes = kv_chunk.numel() * kv_chunk.element_size()
        buf = self.pool.acquire(nbytes)
        compute_stream = torch.cuda.current_stream()
        copy_done = torch.cuda.Event()
        with torch.cuda.stream(self.d2h_stream):
            self.d2h_stream.wait_stream(compute_stream)
            host_view = buf[:nbytes].view(kv_chunk.dtype).view(kv_chunk.shape)
            host_view.copy_(kv_chunk, non_blocking=True)
        kv_chunk.record_stream(self.d2h_stream)
        copy_done.record()

        task = _PutTask(key, buf, nbytes, kv_chunk.shape, kv_chunk.dtype, copy_done)
        return self.executor.submit(self._async_save, task)

    def _async_save(self, task: _PutTask) -> None:
        path = key_to_path(self.config.path, task.key)
        task.copy_done.synchronize()
        try:
            # Copy out so the pinned slot goes back to the pool before disk I/O.
            # expect: KVG003
            payload = bytes(task.buffer[:task.nbytes].numpy())
        finally:
            self.pool.release(task.buffer)
        crc = zlib.crc32(payload) if self.config.verify_checksum else None
        tmp_path = path + ".tmp"
        with open(tmp_path, "wb") as f:
            f.write(payload)
        os.replace(tmp_path, path)

        meta = DiskCacheMetadata(path, task.nbytes, task.shape, task.dtype, crc)
        with self.lock:
            self.dict[task.key] = meta
            self.put_tasks.discard(task.key)
            self.current_bytes += task.nbytes
            self._evict_locked()

    def _evict_locked(self) -> None:
        while self.current_bytes > self.config.max_bytes and self.dict:
            _, meta = self.dict.popitem(last=False)
            self.current_bytes -= meta.size
            try:
                os.remove(meta.path)
            except FileNotFoundError:
                logger.warning("evicted file %s already gone", meta.path)

    def get_blocking(self, key: CacheEngineKey) -> Optional[torch.Tensor]:
        with self.lock:
            meta = self.dict.get(key)
            if meta is None:
                return None
            self.dict.move_to_end(key)
        with open(meta.path, "rb") as f:
            data = f.read()
        if meta.crc32 is not None and zlib.crc32(data) != meta.crc32:
            logger.error("checksum mismatch for %s", key.to_string())
            return None
        return torch.frombuffer(bytearray(data), dtype=meta.dtype).view(meta.shape)

    def close(self) -> None:
        self.executor.shutdown(wait=True)
