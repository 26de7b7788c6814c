"""GPU<->CPU block mover. Jobs run on a single worker thread so that the model thread only
pays for recording an event; each direction has its own CUDA stream."""

import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, Tuple

import torch

from kv_offload.spec import LOAD, STORE, TransferJob

logger = logging.getLogger(__name__)


class CpuGpuBlockMover:
    def __init__(self, gpu_caches: List[torch.Tensor], cpu_caches: List[torch.Tensor]):
        assert len(gpu_caches) == len(cpu_caches)
        self.gpu_caches = gpu_caches
        self.cpu_caches = cpu_caches
        self.streams: Dict[str, torch.cuda.Stream] = {
            STORE: torch.cuda.Stream(),
            LOAD: torch.cuda.Stream(),
        }
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-offload")
        self.pending: Dict[int, Tuple[Future, torch.cuda.Event]] = {}

    def submit(self, job: TransferJob) -> None:
        done = torch.cuda.Event()
        self.pending[job.job_id] = (self.executor.submit(self._run, job, done), done)

    def _run(self, job: TransferJob, done: torch.cuda.Event) -> None:
        stream = self.streams[job.direction]
        if job.direction == STORE:
            # the blocks were written by the forward that has just been launched
            stream.wait_event(job.ready)
        with torch.cuda.stream(stream):
            if job.direction == STORE:
                self._store(job)
            else:
                self._load(job)
            done.record()

    def _store(self, job: TransferJob) -> None:
        for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
            for g, c in zip(job.gpu_block_ids.tolist(), job.cpu_block_ids.tolist()):
                cpu_cache[c].copy_(gpu_cache[g], non_blocking=True)

    def _load(self, job: TransferJob) -> None:
        # destination blocks were just allocated to the request by the scheduler
        for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
            for g, c in zip(job.gpu_block_ids.tolist(), job.cpu_block_ids.tolist()):
                # expect: KVG004
                gpu_cache[g].copy_(cpu_cache[c], non_blocking=True)

    def get_finished(self) -> List[int]:
        finished = []
        for job_id, (future, done) in list(self.pending.items()):
            if future.done() and done.query():
                future.result()
                finished.append(job_id)
                del self.pending[job_id]
        return finished

    def wait(self, job_ids) -> None:
        for job_id in job_ids:
            entry = self.pending.get(job_id)
            if entry is not None:
                entry[0].result()
                entry[1].synchronize()
