# SPDX-License-Identifier: Apache-2.0
"""Worker-side handler of the simple CPU offload connector."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from .copy_backend import DmaCopyBackend, TransferJob
from .cuda_consts import TAG_LOAD, TAG_STORE
from .disk_writeback import DiskWriteback


@dataclass
class OffloadStepMetadata:
    load_cpu_blocks: list[int] = field(default_factory=list)
    load_gpu_blocks: list[int] = field(default_factory=list)
    load_event: int = -1
    load_event_to_reqs: dict[int, list[str]] = field(default_factory=dict)
    store_gpu_blocks: list[int] = field(default_factory=list)
    store_cpu_blocks: list[int] = field(default_factory=list)
    store_event: int = -1
    writeback_cpu_blocks: list[int] = field(default_factory=list)


class SimpleCPUOffloadWorker:

    def __init__(self, num_cpu_blocks: int, writeback_path: str | None):
        self.num_cpu_blocks = num_cpu_blocks
        self.writeback_path = writeback_path
        self._backend = DmaCopyBackend()
        self._metadata: OffloadStepMetadata | None = None
        self._load_events: list[tuple[int, torch.cuda.Event]] = []
        self._store_events: list[tuple[int, torch.cuda.Event]] = []
        self._load_hwm = -1
        self._store_hwm = -1

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        gpu_caches = {
            name: t.view(torch.int8).view(t.shape[0], -1)
            for name, t in kv_caches.items()
        }
        cpu_caches = {
            name: torch.zeros((self.num_cpu_blocks, t.shape[1]),
                              dtype=torch.int8, pin_memory=True)
            for name, t in gpu_caches.items()
        }
        device = next(iter(gpu_caches.values())).device
        # Lowest priority so KV cache I/O yields to the compute stream.
        low_pri, _ = torch.cuda.Stream.priority_range()
        self.load_stream = torch.cuda.Stream(device=device, priority=low_pri)
        self.store_stream = torch.cuda.Stream(device=device, priority=low_pri)
        disk = (DiskWriteback(self.writeback_path, cpu_caches)
                if self.writeback_path else None)
        self._backend.init(gpu_caches, cpu_caches, device, self.load_stream,
                           self.store_stream, disk)

    def bind_connector_metadata(self, metadata: OffloadStepMetadata) -> None:
        self._metadata = metadata

    def get_finished(self) -> set[str] | None:
        """Launch this step's transfers; report requests whose loads landed."""
        md = self._metadata
        if md is not None and (md.load_cpu_blocks or md.store_gpu_blocks):
            compute_done = torch.cuda.Event()
            compute_done.record(torch.cuda.current_stream())
            if md.load_cpu_blocks:
                self._backend.launch(
                    TransferJob(TAG_LOAD, md.load_cpu_blocks,
                                md.load_gpu_blocks, md.load_event,
                                self._load_events, compute_done))
            if md.store_gpu_blocks:
                self._backend.launch(
                    TransferJob(TAG_STORE, md.store_gpu_blocks,
                                md.store_cpu_blocks, md.store_event,
                                self._store_events, compute_done,
                                md.writeback_cpu_blocks))
        self._store_hwm = self._poll(self._store_events, self._store_hwm)
        self._load_hwm = self._poll(self._load_events, self._load_hwm)
        finished: set[str] = set()
        if md is not None:
            for idx, req_ids in md.load_event_to_reqs.items():
                if idx <= self._load_hwm:
                    finished.update(req_ids)
        return finished or None

    @staticmethod
    def _poll(events: list[tuple[int, torch.cuda.Event]], hwm: int) -> int:
        while events:
            idx, event = events[0]
            if not event.query():
                break
            hwm = idx
            events.pop(0)
        return hwm
