from __future__ import annotations

import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Optional, Sequence

import cupy

from .config import OffloadConfig
from .host_pool import HostBlockPool
from .transfer import load_blocks, store_blocks

logger = logging.getLogger(__name__)


class CupyOffloadWorker:
    def __init__(
        self,
        config: OffloadConfig,
        device_caches: Sequence[cupy.ndarray],
        host_pool: HostBlockPool,
    ):
        self.config = config
        self.device_caches = device_caches
        self.host_pool = host_pool
        self.load_stream = cupy.cuda.Stream(non_blocking=True)
        self.store_stream = cupy.cuda.Stream(non_blocking=True)
        self._spill_executor = ThreadPoolExecutor(
            max_workers=config.spill_workers, thread_name_prefix="kv-spill"
        )
        self._pending_loads: dict[str, cupy.cuda.Event] = {}
        self._pending_stores: dict[str, tuple[cupy.cuda.Event, Optional[Future]]] = {}

    def start_load_kv(self, reqs: dict[str, list[tuple[int, int]]]) -> None:
        with self.load_stream:
            compute_ready = cupy.cuda.Event(disable_timing=True)
            compute_ready.record(cupy.cuda.get_current_stream())
            self.load_stream.wait_event(compute_ready)
            for req_id, pairs in reqs.items():
                load_blocks(self.device_caches, self.host_pool, pairs, self.load_stream)
                self._pending_loads[req_id] = self.load_stream.record()

    def wait_for_load(self, req_id: str) -> None:
        event = self._pending_loads.pop(req_id, None)
        if event is not None:
            cupy.cuda.get_current_stream().wait_event(event)

    def save(self, reqs: dict[str, list[tuple[int, int]]]) -> None:
        compute_ready = cupy.cuda.get_current_stream().record()
        self.store_stream.wait_event(compute_ready)
        for req_id, pairs in reqs.items():
            with self.store_stream:
                store_blocks(self.device_caches, self.host_pool, pairs, self.store_stream)
            done = cupy.cuda.Event(disable_timing=True)
            done.record()
            future = None
            if self.config.spill_dir is not None:
                host_ids = [h for _, h in pairs]
                future = self._spill_executor.submit(self._spill, req_id, done, host_ids)
            self._pending_stores[req_id] = (done, future)

    def _spill(self, req_id: str, done: cupy.cuda.Event, host_ids: list[int]) -> str:
        done.synchronize()
        path = os.path.join(self.config.spill_dir, f"{req_id}.kv")
        with open(path, "wb") as f:
            for layer in range(self.host_pool.num_layers):
                for host_id in host_ids:
                    # expect: KVG003
                    f.write(self.host_pool.block(layer, host_id).tobytes())
        logger.debug("spilled %d blocks of %s to %s", len(host_ids), req_id, path)
        return path

    def get_finished(self) -> set[str]:
        finished = set()
        for req_id, (done, future) in list(self._pending_stores.items()):
            if done.done and (future is None or future.done()):
                finished.add(req_id)
                del self._pending_stores[req_id]
        return finished

    def shutdown(self) -> None:
        self._spill_executor.shutdown(wait=True)
