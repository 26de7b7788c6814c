# SPDX-License-Identifier: Apache-2.0
"""cuMemcpyBatchAsync copy backend driven by a background thread."""
from __future__ import annotations

import queue
import threading
from typing import NamedTuple

import torch

from .cuda_consts import SRC_ACCESS_ORDER_STREAM, TAG_LOAD, TAG_STORE
from .disk_writeback import DiskWriteback
from .mem_ops import BatchMemcpyParams, build_params, copy_blocks


class TransferJob(NamedTuple):
    tag: str
    src_blocks: list[int]
    dst_blocks: list[int]
    event_idx: int
    events: list[tuple[int, torch.cuda.Event]]
    wait_event: torch.cuda.Event | None
    writeback: list[int] | None = None


class DmaCopyBackend:

    def __init__(self) -> None:
        self._params: dict[str, BatchMemcpyParams] = {}
        self._streams: dict[str, torch.cuda.Stream] = {}
        self._queue: queue.SimpleQueue | None = None
        self._thread: threading.Thread | None = None
        self._disk: DiskWriteback | None = None

    def init(self, gpu_caches: dict[str, torch.Tensor],
             cpu_caches: dict[str, torch.Tensor], device: torch.device,
             load_stream: torch.cuda.Stream, store_stream: torch.cuda.Stream,
             disk: DiskWriteback | None) -> None:
        self._streams = {TAG_LOAD: load_stream, TAG_STORE: store_stream}
        store_params = build_params(gpu_caches, cpu_caches, store_stream,
                                    src_access_order=SRC_ACCESS_ORDER_STREAM)
        load_params = build_params(cpu_caches, gpu_caches, load_stream)
        self._params = {TAG_STORE: store_params, TAG_LOAD: load_params}
        self._disk = disk
        self._queue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._copy_loop,
                                        args=(device, ), daemon=True)
        self._thread.start()

    def launch(self, job: TransferJob) -> None:
        assert self._queue is not None
        self._queue.put(job)

    def _copy_loop(self, device: torch.device) -> None:
        torch.cuda.set_device(device)
        while True:
            job = self._queue.get()
            if job is None:
                return
            stream = self._streams[job.tag]
            if job.wait_event is not None:
                stream.wait_event(job.wait_event)
            copy_blocks(job.src_blocks, job.dst_blocks, self._params[job.tag])
            done = torch.cuda.Event()
            done.record(stream)
            job.events.append((job.event_idx, done))
            if job.writeback and self._disk is not None:
                self._disk.submit(job.writeback, done)
