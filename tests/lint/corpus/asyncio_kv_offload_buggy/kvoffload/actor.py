from __future__ import annotations

import asyncio
import hashlib
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import torch

from ._driver import ORDER_ANY, batch_copy, make_copy_attrs
from .config import OffloadConfig
from .host_store import HostObjectStore


class KVOffloadActor:
    """One per GPU worker. ``offload`` is invoked by the engine right after it has
    enqueued the step that last writes the given blocks on ``compute_stream``."""

    def __init__(
        self,
        kv_caches: list[torch.Tensor],
        compute_stream: torch.cuda.Stream,
        store: HostObjectStore,
        cfg: OffloadConfig,
    ) -> None:
        self.cfg = cfg
        self._kv = kv_caches  # per layer: (num_blocks, block_bytes) uint8
        self._device = kv_caches[0].device
        self._block_bytes = kv_caches[0].shape[1]
        self._compute = compute_stream
        self._stream = torch.cuda.Stream(self._device)
        self._store = store
        self._pinned = torch.empty(
            (cfg.staging_blocks, len(kv_caches), self._block_bytes), dtype=torch.uint8, pin_memory=True
        )
        self._free_slots: asyncio.Queue[int] | None = None
        self._pool = ThreadPoolExecutor(cfg.io_threads, thread_name_prefix="kv-offload")
        self._attrs = make_copy_attrs(self._device.index, src_access_order=ORDER_ANY)

    async def _slots(self) -> asyncio.Queue[int]:
        if self._free_slots is None:
            self._free_slots = asyncio.Queue()
            for i in range(self.cfg.staging_blocks):
                self._free_slots.put_nowait(i)
        return self._free_slots

    async def _await_event(self, ev: torch.cuda.Event) -> None:
        loop = asyncio.get_running_loop()
        delay = self.cfg.poll_initial_s
        deadline = loop.time() + self.cfg.poll_budget_s
        while not ev.query():
            if loop.time() > deadline:
                await loop.run_in_executor(self._pool, ev.synchronize)
                return
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.cfg.poll_max_s)

    async def offload(self, block_ids: Sequence[int]) -> list[str]:
        free = await self._slots()
        slots = [await free.get() for _ in block_ids]
        try:
            ready = torch.cuda.Event()
            ready.record(self._compute)
            self._stream.wait_event(ready)
            dsts, srcs = [], []
            for slot, blk in zip(slots, block_ids):
                for layer, cache in enumerate(self._kv):
                    dsts.append(self._pinned[slot, layer].data_ptr())
                    srcs.append(cache[blk].data_ptr())
            batch_copy(dsts, srcs, [self._block_bytes] * len(dsts), self._attrs, self._stream.cuda_stream)
            done = torch.cuda.Event()
            done.record(self._stream)
            # expect: KVG003
            keys = [hashlib.blake2b(self._pinned[s].numpy(), digest_size=16).hexdigest() for s in slots]
            await self._await_event(done)
            items = [(k, self._pinned[s].numpy().tobytes()) for k, s in zip(keys, slots)]
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(self._pool, self._store.put_many, items)
            return keys
        finally:
            for s in slots:
                free.put_nowait(s)

    async def close(self) -> None:
        self._pool.shutdown(wait=True)
