"""GPU <-> CPU offloading handler with optional write-through to disk."""

from __future__ import annotations

import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial

import torch
from cuda.bindings import runtime as cudart

from disk_offload import spill
from disk_offload.batch_copy import batch_copy, layer_block_spans, make_batch_attrs


@dataclass
class BlockTransfer:
    to_cpu: bool
    gpu_block_ids: list[int]
    cpu_block_ids: list[int]


class CpuDiskOffloadingHandler:
    def __init__(self, gpu_layers: list[torch.Tensor], num_cpu_blocks: int,
                 spill_dir: str | None = None, device: int = 0):
        self.gpu_layers = gpu_layers
        self.cpu_layers = [
            torch.zeros((num_cpu_blocks, *t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_layers
        ]
        self.d2h_stream = torch.cuda.Stream()
        self.h2d_stream = torch.cuda.Stream()
        self._store_attrs = make_batch_attrs(
            src_access_order=cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderDuringApiCall,
            src_on_device=True,
            device=device,
        )
        self._load_attrs = make_batch_attrs(src_on_device=False, device=device)
        self.spill_dir = spill_dir
        self._spiller = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kv-spill")
        self._jobs: deque[tuple[int, torch.cuda.Event]] = deque()
        self._spills: dict[int, Future] = {}

    def transfer_async(self, job_id: int, xfer: BlockTransfer) -> bool:
        current = torch.cuda.current_stream()
        if xfer.to_cpu:
            stream, attrs = self.d2h_stream, self._store_attrs
            src, dst = self.gpu_layers, self.cpu_layers
            src_ids, dst_ids = xfer.gpu_block_ids, xfer.cpu_block_ids
        else:
            stream, attrs = self.h2d_stream, self._load_attrs
            src, dst = self.cpu_layers, self.gpu_layers
            src_ids, dst_ids = xfer.cpu_block_ids, xfer.gpu_block_ids
        stream.wait_stream(current)
        srcs, dsts, sizes = layer_block_spans(src, dst, src_ids, dst_ids)
        batch_copy(dsts, srcs, sizes, attrs, stream)
        event = torch.cuda.Event()
        event.record(stream)
        self._jobs.append((job_id, event))
        if xfer.to_cpu and self.spill_dir is not None:
            self._spill(job_id, xfer.cpu_block_ids, event)
        return True

    def _spill(self, job_id: int, cpu_ids: list[int], event: torch.cuda.Event) -> None:
        path = os.path.join(self.spill_dir, f"job-{job_id}.kv")
        header = spill.spill_header(len(self.cpu_layers), cpu_ids)
        write = partial(spill.write_blocks, done_event=event, header=header)
        self._spills[job_id] = self._spiller.submit(write, path, self.cpu_layers, cpu_ids)

    def get_finished(self) -> list[int]:
        finished = []
        while self._jobs and self._jobs[0][1].query():
            job_id, event = self._jobs.popleft()
            fut = self._spills.get(job_id)
            if fut is not None and not fut.done():
                self._jobs.appendleft((job_id, event))
                break
            self._spills.pop(job_id, None)
            finished.append(job_id)
        return finished
