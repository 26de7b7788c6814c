from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from queue import Queue
from typing import Optional, Sequence

import torch
from cuda.bindings import runtime as cudart

from kv_tier.cudart_utils import check, create_event, create_stream
from kv_tier.ordering import ComputeFence
from kv_tier.transfers import load_blocks, store_blocks

logger = logging.getLogger(__name__)


@dataclass
class StoreJob:
    job_id: int
    cpu_ids: Sequence[int]
    done_event: object
    spill_path: Optional[str] = None


class HostTierWorker:
    """Moves KV blocks between the GPU cache and a pinned host tier."""

    def __init__(self, gpu_layers: list[torch.Tensor], num_cpu_blocks: int, spill_dir: str):
        self.gpu_layers = gpu_layers
        self.cpu_layers = [
            torch.empty((num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_layers
        ]
        self.store_stream = create_stream()
        self.load_stream = create_stream()
        self.fence = ComputeFence()
        self.spill_dir = spill_dir
        self.finished: Queue[int] = Queue()
        self.pending: Queue[Optional[StoreJob]] = Queue()
        self.spiller = threading.Thread(target=self._spill_loop, name="kv-tier-spill", daemon=True)
        self.spiller.start()

    def store(self, job_id: int, gpu_ids: Sequence[int], cpu_ids: Sequence[int],
              spill: bool = False) -> None:
        self.fence.order_after_compute(self.store_stream)
        store_blocks(self.gpu_layers, self.cpu_layers, gpu_ids, cpu_ids, self.store_stream)
        done = create_event()
        check(cudart.cudaEventRecord(done, self.store_stream))
        path = os.path.join(self.spill_dir, f"{job_id}.kv") if spill else None
        self.pending.put(StoreJob(job_id, cpu_ids, done, path))

    def load(self, gpu_ids: Sequence[int], cpu_ids: Sequence[int]) -> None:
        self.fence.order_after_compute(self.load_stream)
        load_blocks(self.cpu_layers, self.gpu_layers, cpu_ids, gpu_ids, self.load_stream)
        done = create_event()
        check(cudart.cudaEventRecord(done, self.load_stream))
        compute = torch.cuda.current_stream().cuda_stream
        check(cudart.cudaStreamWaitEvent(compute, done, 0))
        check(cudart.cudaEventDestroy(done))

    def _spill_loop(self) -> None:
        while True:
            job = self.pending.get()
            if job is None:
                return
            check(cudart.cudaEventSynchronize(job.done_event))
            if job.spill_path is not None:
                with open(job.spill_path, "wb") as f:
                    for cpu in self.cpu_layers:
                        for c in job.cpu_ids:
                            f.write(cpu[c].numpy().tobytes())
            check(cudart.cudaEventDestroy(job.done_event))
            self.finished.put(job.job_id)

    def shutdown(self) -> None:
        self.pending.put(None)
        self.spiller.join()
