# SPDX-License-Identifier: Apache-2.0
import logging
import queue
import threading
from dataclasses import dataclass

import numpy as np
import torch

from .backend import FileStash
from .constants import STAGING_BLOCKS
from .cudart import CudaRT
from .scheduler import BlockTransfer, StashMetadata

logger = logging.getLogger(__name__)


@dataclass
class _Layer:
    base: int
    block_bytes: int


@dataclass
class _SaveTask:
    layer: str
    block_ids: list[int]
    hashes: list[bytes]
    ready: int | None


class StashWorker:
    def __init__(self, stash: FileStash) -> None:
        self.stash = stash
        self.rt = CudaRT.load()
        self._save_stream = self.rt.stream_create()
        self._load_stream = self.rt.stream_create()
        self._layers: dict[str, _Layer] = {}
        self._last_ready: int | None = None
        self._tasks: "queue.Queue[_SaveTask]" = queue.Queue()
        self._thread = threading.Thread(target=self._save_loop, name="kv-stash-save", daemon=True)

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        for name, t in kv_caches.items():
            self._layers[name] = _Layer(t.data_ptr(), t.stride(0) * t.element_size())
        width = max(layer.block_bytes for layer in self._layers.values())
        self._save_buf = torch.empty((STAGING_BLOCKS, width), dtype=torch.uint8, pin_memory=True)
        self._load_buf = torch.empty((STAGING_BLOCKS, width), dtype=torch.uint8, pin_memory=True)
        self._thread.start()

    def _record_current(self) -> int:
        event = self.rt.event_create()
        self.rt.event_record(event, torch.cuda.current_stream().cuda_stream)
        return event

    def _enqueue(self, layer: str, save: BlockTransfer, ready: int | None) -> None:
        for i in range(0, len(save.block_ids), STAGING_BLOCKS):
            self._tasks.put(_SaveTask(layer, save.block_ids[i:i + STAGING_BLOCKS],
                                      save.hashes[i:i + STAGING_BLOCKS], ready))

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, meta: StashMetadata) -> None:
        regular = [s for s in meta.saves if not s.is_tail]
        if not regular:
            return
        self._last_ready = self._record_current()
        for save in regular:
            self._enqueue(layer_name, save, self._last_ready)

    def wait_for_save(self, meta: StashMetadata) -> None:
        tails = [s for s in meta.saves if s.is_tail]
        for save in tails:
            for layer_name in self._layers:
                self._enqueue(layer_name, save, self._last_ready)
        self._tasks.join()

    def _save_loop(self) -> None:
        buf = self._save_buf.numpy()
        base = self._save_buf.data_ptr()
        while True:
            task = self._tasks.get()
            try:
                if task.ready is not None:
                    self.rt.event_synchronize(task.ready)
                layer = self._layers[task.layer]
                for i, block_id in enumerate(task.block_ids):
                    self.rt.copy_d2h(base + i * buf.shape[1],
                                     layer.base + block_id * layer.block_bytes,
                                     layer.block_bytes, self._save_stream)
                for i, block_hash in enumerate(task.hashes):
                    # expect: KVG003
                    self.stash.put(task.layer, block_hash, bytes(buf[i, :layer.block_bytes]))
                self.rt.stream_synchronize(self._save_stream)
            except Exception:
                logger.exception("stash save for %s failed", task.layer)
            finally:
                self._tasks.task_done()

    def start_load_kv(self, meta: StashMetadata) -> None:
        if not meta.loads:
            return
        current = torch.cuda.current_stream().cuda_stream
        ready = self.rt.event_create()
        self.rt.event_record(ready, current)
        self.rt.stream_wait_event(self._load_stream, ready)
        staging = self._load_buf.numpy()
        base = self._load_buf.data_ptr()
        for name, layer in self._layers.items():
            for load in meta.loads:
                for start in range(0, len(load.block_ids), STAGING_BLOCKS):
                    self.rt.stream_synchronize(self._load_stream)
                    ids = load.block_ids[start:start + STAGING_BLOCKS]
                    for i, (block_id, h) in enumerate(zip(ids, load.hashes[start:])):
                        staging[i, :layer.block_bytes] = np.frombuffer(
                            self.stash.get(name, h), dtype=np.uint8)
                        self.rt.copy_h2d(layer.base + block_id * layer.block_bytes,
                                         base + i * staging.shape[1],
                                         layer.block_bytes, self._load_stream)
        done = self.rt.event_create()
        self.rt.event_record(done, self._load_stream)
        self.rt.stream_wait_event(current, done)
