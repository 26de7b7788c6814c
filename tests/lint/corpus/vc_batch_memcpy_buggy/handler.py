"""Asynchronous KV block transfers between the GPU cache and a pinned CPU
cache, run on the worker. Jobs are polled via get_finished()."""

from collections import deque
from dataclasses import dataclass
from typing import Deque, List, Sequence, Tuple

import torch
from cuda.bindings import driver

from .config import CPU, GPU, MAX_INFLIGHT_TRANSFERS
from .cuda_batch import block_pointers, check, make_attrs

# (src_medium, src_block_ids, dst_medium, dst_block_ids)
TransferSpec = Tuple[str, List[int], str, List[int]]


@dataclass
class Transfer:
    job_id: int
    end_event: torch.cuda.Event
    num_blocks: int


class CpuGpuOffloadingHandler:
    def __init__(self, gpu_caches: Sequence[torch.Tensor],
                 cpu_caches: Sequence[torch.Tensor], device_id: int):
        self.gpu_caches = list(gpu_caches)
        self.cpu_caches = list(cpu_caches)
        self.d2h_stream = torch.cuda.Stream(device=device_id)
        self.h2d_stream = torch.cuda.Stream(device=device_id)
        self.store_attrs = make_attrs(GPU, CPU, device_id)
        self.load_attrs = make_attrs(CPU, GPU, device_id)
        self._transfers: Deque[Transfer] = deque()

    def transfer_async(self, job_id: int, spec: TransferSpec) -> bool:
        if len(self._transfers) >= MAX_INFLIGHT_TRANSFERS:
            return False
        src_medium, src_ids, dst_medium, dst_ids = spec
        # everything the model queued so far (writes to / reads of the GPU
        # blocks) must precede the transfer
        start = torch.cuda.Event()
        start.record(torch.cuda.current_stream())
        if (src_medium, dst_medium) == (GPU, CPU):
            stream = self.d2h_stream
            stream.wait_event(start)
            self._store_blocks(src_ids, dst_ids, stream)
        else:
            stream = self.h2d_stream
            stream.wait_event(start)
            self._load_blocks(src_ids, dst_ids, stream)
        end = torch.cuda.Event()
        end.record(stream)
        self._transfers.append(Transfer(job_id, end, len(src_ids)))
        return True

    def _store_blocks(self, gpu_ids: List[int], cpu_ids: List[int],
                      stream: torch.cuda.Stream) -> None:
        dsts, srcs, sizes = block_pointers(self.cpu_caches, cpu_ids,
                                           self.gpu_caches, gpu_ids)
        # expect: KVG002
        err, *_ = driver.cuMemcpyBatchAsync(
            dsts, srcs, sizes, len(sizes), [self.store_attrs], [0], 1,
            driver.CUstream(stream.cuda_stream))
        check(err, "cuMemcpyBatchAsync(D2H)")

    def _load_blocks(self, cpu_ids: List[int], gpu_ids: List[int],
                     stream: torch.cuda.Stream) -> None:
        dsts, srcs, sizes = block_pointers(self.gpu_caches, gpu_ids,
                                           self.cpu_caches, cpu_ids)
        err, *_ = driver.cuMemcpyBatchAsync(
            dsts, srcs, sizes, len(sizes), [self.load_attrs], [0], 1,
            driver.CUstream(stream.cuda_stream))
        check(err, "cuMemcpyBatchAsync(H2D)")

    def get_finished(self) -> List[Tuple[int, bool]]:
        finished = []
        while self._transfers and self._transfers[0].end_event.query():
            finished.append((self._transfers.popleft().job_id, True))
        return finished

    def wait(self, job_ids) -> None:
        for t in self._transfers:
            if t.job_id in job_ids:
                t.end_event.synchronize()
