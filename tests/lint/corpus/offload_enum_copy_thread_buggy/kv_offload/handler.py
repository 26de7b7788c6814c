import queue
import threading
from collections import deque
from dataclasses import dataclass
from typing import List, Optional, Tuple

import torch

from kv_offload.cuda_batch import SrcAccessOrder, memcpy_batch

TransferResult = Tuple[int, bool]


@dataclass
class _CopyJob:
    job_id: int
    src_ptrs: List[int]
    dst_ptrs: List[int]
    sizes: List[int]
    compute_done: torch.cuda.Event


class SingleDirectionOffloadingHandler:
    """Copies blocks in one direction. Jobs run in submission order on one stream."""

    def __init__(self, src_tensors: List[torch.Tensor], dst_tensors: List[torch.Tensor],
                 gpu_to_cpu: bool, device: torch.device):
        self.src_tensors = src_tensors
        self.dst_tensors = dst_tensors
        self.gpu_to_cpu = gpu_to_cpu
        self.device = device
        self.block_bytes = [t.stride(0) * t.element_size() for t in src_tensors]
        # each job's stream waits for the step that produced its blocks, so the driver is
        # free to fetch the source whenever it likes once the call is made
        self.src_order = SrcAccessOrder.DURING_API_CALL if gpu_to_cpu else SrcAccessOrder.ANY
        low_priority, _ = torch.cuda.Stream.priority_range()
        self.stream = torch.cuda.Stream(device=device, priority=low_priority)
        self._jobs: "queue.Queue[Optional[_CopyJob]]" = queue.Queue()
        self._done: "queue.Queue[Tuple[int, torch.cuda.Event]]" = queue.Queue()
        self._in_flight: "deque[Tuple[int, torch.cuda.Event]]" = deque()
        self._thread = threading.Thread(target=self._copy_loop, daemon=True,
                                        name="kv-offload-g2c" if gpu_to_cpu else "kv-offload-c2g")
        self._thread.start()

    def transfer_async(self, job_id: int, src_blocks: List[int], dst_blocks: List[int]) -> bool:
        compute_done = torch.cuda.Event()
        compute_done.record(torch.cuda.current_stream())
        srcs, dsts, sizes = [], [], []
        for src, dst, nbytes in zip(self.src_tensors, self.dst_tensors, self.block_bytes):
            src_base, dst_base = src.data_ptr(), dst.data_ptr()
            for s, d in zip(src_blocks, dst_blocks):
                srcs.append(src_base + s * nbytes)
                dsts.append(dst_base + d * nbytes)
                sizes.append(nbytes)
        self._jobs.put(_CopyJob(job_id, srcs, dsts, sizes, compute_done))
        return True

    def _copy_loop(self) -> None:
        torch.cuda.set_device(self.device)
        while True:
            job = self._jobs.get()
            if job is None:
                return
            self.stream.wait_event(job.compute_done)
            memcpy_batch(job.dst_ptrs, job.src_ptrs, job.sizes, self.src_order,
                         self.stream.cuda_stream)
            done = torch.cuda.Event()
            done.record(self.stream)
            self._done.put((job.job_id, done))

    def get_finished(self) -> List[TransferResult]:
        while True:
            try:
                self._in_flight.append(self._done.get_nowait())
            except queue.Empty:
                break
        results = []
        while self._in_flight and self._in_flight[0][1].query():
            job_id, _ = self._in_flight.popleft()
            results.append((job_id, True))
        return results

    def shutdown(self) -> None:
        self._jobs.put(None)
        self._thread.join()
