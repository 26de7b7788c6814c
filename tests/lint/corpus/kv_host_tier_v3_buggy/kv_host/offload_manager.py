import logging
from collections import deque
from dataclasses import dataclass
from typing import Deque, Dict, List, Tuple

import torch

from . import cudart

logger = logging.getLogger(__name__)


@dataclass
class OffloadJob:
    job_id: int
    block_pairs: List[Tuple[int, int]]
    done_event: int


class KVCacheHostOffloader:
    """Copies evicted primary (GPU) blocks into the secondary host pool."""

    def __init__(self, primary_pool: torch.Tensor, num_host_blocks: int):
        self._rt = cudart.libcudart()
        self.block_bytes = primary_pool[0].nbytes
        self._gpu_base = primary_pool.data_ptr()
        self._gpu_stride = primary_pool.stride(0) * primary_pool.element_size()
        self._host_base = cudart.host_alloc(num_host_blocks * self.block_bytes)
        self._stream = cudart.stream_create()
        self._forward_done = cudart.event_create()
        self._jobs: Deque[OffloadJob] = deque()
        self._by_id: Dict[int, OffloadJob] = {}
        self._event_pool: List[int] = []
        logger.info(
            "Secondary pool: %d blocks, %.2f GB pinned",
            num_host_blocks,
            num_host_blocks * self.block_bytes / 1e9,
        )

    def host_block_ptr(self, host_block: int) -> int:
        return self._host_base + host_block * self.block_bytes

    def _gpu_block_ptr(self, gpu_block: int) -> int:
        return self._gpu_base + gpu_block * self._gpu_stride

    def mark_forward_done(self, compute_stream: int) -> None:
        cudart.event_record(self._forward_done, compute_stream)

    def offload(self, job_id: int, block_pairs: List[Tuple[int, int]]) -> None:
        cudart.stream_wait_event(self._stream, self._forward_done)
        for gpu_block, host_block in block_pairs:
            # expect: KVG001
            err = self._rt.cudaMemcpyAsync(
                self.host_block_ptr(host_block),
                self._gpu_block_ptr(gpu_block),
                self.block_bytes,
                cudart.cudaMemcpyDeviceToHost,
                self._stream,
            )
            cudart.check(err, "cudaMemcpyAsync")
        done = self._event_pool.pop() if self._event_pool else cudart.event_create()
        cudart.event_record(done, self._stream)
        job = OffloadJob(job_id, block_pairs, done)
        self._jobs.append(job)
        self._by_id[job_id] = job

    def fence(self, compute_stream: int) -> None:
        """Keep the primary blocks of in-flight jobs from being overwritten."""
        if self._jobs:
            cudart.stream_wait_event(compute_stream, self._jobs[-1].done_event)

    def wait(self, job_id: int) -> None:
        cudart.event_synchronize(self._by_id[job_id].done_event)

    def poll_finished(self) -> List[int]:
        finished = []
        while self._jobs and cudart.event_query(self._jobs[0].done_event):
            finished.append(self._jobs.popleft().job_id)
        return finished

    def release(self, job_id: int) -> None:
        job = self._by_id.pop(job_id)
        self._event_pool.append(job.done_event)
