import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Optional

import torch

from kv_disk_tier.staging import StagingSlots


class DiskBackend:
    def __init__(self, gpu_caches: dict[str, torch.Tensor], path: str, num_disk_slots: int,
                 num_buffer_slots: int = 2):
        self.gpu = {n: t.view(torch.int8).view(t.shape[0], -1) for n, t in gpu_caches.items()}
        self.device = next(iter(gpu_caches.values())).device
        self.store_slots = StagingSlots(self.gpu, num_buffer_slots)
        self.load_slots = StagingSlots(self.gpu, num_buffer_slots)
        self.block_bytes = self.store_slots.slot_bytes
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_DIRECT", 0), 0o600)
        os.ftruncate(self._fd, num_disk_slots * self.block_bytes)
        self._store_pool = ThreadPoolExecutor(1, thread_name_prefix="kv-disk-store")
        self._load_pool = ThreadPoolExecutor(1, thread_name_prefix="kv-disk-load")

    def launch(self, payload: dict[str, Any]) -> Future:
        if payload["is_store"]:
            return self._store_pool.submit(self._store_job, payload)
        return self._load_pool.submit(self._load_job, payload)

    def _begin(self, stream: torch.cuda.Stream, ready: torch.cuda.Event) -> None:
        torch.cuda.set_device(self.device)
        # `ready` was recorded on the compute stream by the thread that runs the model;
        # this thread's current stream says nothing about the forward
        stream.wait_event(ready)

    def _views(self, slots: StagingSlots, buf: int) -> list[memoryview]:
        return [memoryview(slots.buffers[n][buf].numpy()) for n in slots.names]

    def _store_job(self, payload: dict[str, Any]) -> torch.cuda.Event:
        stream: torch.cuda.Stream = payload["stream"]
        slots = self.store_slots
        self._begin(stream, payload["ready"])
        pending: list[Optional[tuple[torch.cuda.Event, int]]] = [None] * slots.num_slots
        with torch.cuda.stream(stream):
            for i, (blk, disk_slot) in enumerate(zip(payload["src"], payload["dst"])):
                buf = i % slots.num_slots
                prev = pending[buf]
                if prev is not None:
                    prev[0].synchronize()
                    os.pwritev(self._fd, self._views(slots, buf), prev[1])
                for n in slots.names:
                    slots.buffers[n][buf].copy_(self.gpu[n][blk], non_blocking=True)
                staged = torch.cuda.Event()
                staged.record(stream)
                pending[buf] = (staged, disk_slot * self.block_bytes)
        # flush the slots still holding a staged block
        for buf, last in enumerate(pending):
            if last is not None:
                last[0].synchronize()
                os.pwritev(self._fd, self._views(slots, buf), last[1])
        done = torch.cuda.Event()
        done.record(stream)
        return done

    def _load_job(self, payload: dict[str, Any]) -> torch.cuda.Event:
        stream: torch.cuda.Stream = payload["stream"]
        slots = self.load_slots
        self._begin(stream, payload["ready"])
        uploaded: list[Optional[torch.cuda.Event]] = [None] * slots.num_slots
        with torch.cuda.stream(stream):
            for i, (disk_slot, blk) in enumerate(zip(payload["src"], payload["dst"])):
                buf = i % slots.num_slots
                if uploaded[buf] is not None:
                    uploaded[buf].synchronize()  # slot still being uploaded
                os.preadv(self._fd, self._views(slots, buf), disk_slot * self.block_bytes)
                for n in slots.names:
                    self.gpu[n][blk].copy_(slots.buffers[n][buf], non_blocking=True)
                ev = torch.cuda.Event()
                ev.record(stream)
                uploaded[buf] = ev
        done = torch.cuda.Event()
        done.record(stream)
        return done
