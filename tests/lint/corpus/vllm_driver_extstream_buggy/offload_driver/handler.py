"""A GPU<->CPU offloading handler in the shape of vLLM's kv_offload worker handlers: one driver
stream per direction, transfers issued in submission order, completion reported by polling
each job's end event.

Bug: only stores are ordered behind the compute stream. A load writes GPU blocks the scheduler
has just handed to a new request; they were freed by requests whose attention kernels may still
be queued on the compute stream and reading them, and the load stream is not ordered behind
those kernels."""

from collections import deque
from typing import Deque, List, Tuple

import torch

from offload_driver.batch_copy import BatchCopier
from offload_driver.cuda_utils import create_stream


class CpuGpuOffloadingHandler:
    def __init__(self, gpu_caches: List[torch.Tensor], num_cpu_blocks: int):
        self.gpu_caches = gpu_caches
        self.cpu_caches = [
            torch.empty((num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        self.block_bytes = [t[0].numel() * t.element_size() for t in gpu_caches]
        device = gpu_caches[0].device
        self.d2h_stream = create_stream(device)
        self.h2d_stream = create_stream(device)
        self.d2h_copier = BatchCopier(True, device.index or 0)
        self.h2d_copier = BatchCopier(False, device.index or 0)
        self.transfers: Deque[Tuple[int, torch.cuda.Event]] = deque()

    def _addresses(self, src_tensors, dst_tensors, src_blocks, dst_blocks):
        dsts, srcs, sizes = [], [], []
        for src, dst, nbytes in zip(src_tensors, dst_tensors, self.block_bytes):
            for s, d in zip(src_blocks, dst_blocks):
                srcs.append(src.data_ptr() + s * nbytes)
                dsts.append(dst.data_ptr() + d * nbytes)
                sizes.append(nbytes)
        return dsts, srcs, sizes

    def store_async(self, job_id: int, gpu_blocks: List[int], cpu_blocks: List[int]) -> None:
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        dsts, srcs, sizes = self._addresses(self.gpu_caches, self.cpu_caches, gpu_blocks, cpu_blocks)
        self.d2h_copier.copy(dsts, srcs, sizes, self.d2h_stream.cuda_stream)
        self._track(job_id, self.d2h_stream)

    def load_async(self, job_id: int, cpu_blocks: List[int], gpu_blocks: List[int]) -> None:
        dsts, srcs, sizes = self._addresses(self.cpu_caches, self.gpu_caches, cpu_blocks, gpu_blocks)
        self.h2d_copier.copy(dsts, srcs, sizes, self.h2d_stream.cuda_stream)
        self._track(job_id, self.h2d_stream)

    def _track(self, job_id: int, stream: torch.cuda.ExternalStream) -> None:
        end = torch.cuda.Event()
        end.record(stream)
        self.transfers.append((job_id, end))

    def get_finished(self) -> List[int]:
        done = []
        while self.transfers and self.transfers[0][1].query():
            done.append(self.transfers.popleft()[0])
        return done
