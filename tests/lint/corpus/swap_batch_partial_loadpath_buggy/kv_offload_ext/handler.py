from collections import deque

import numpy as np
import torch

from kv_offload_ext.copy_ops import select_copy_fn


class BlockCopyHandler:
    def __init__(self, gpu_tensors: list[torch.Tensor], cpu_tensors: list[torch.Tensor],
                 gpu_to_cpu: bool):
        self.gpu_to_cpu = gpu_to_cpu
        self.src_tensors = gpu_tensors if gpu_to_cpu else cpu_tensors
        self.dst_tensors = cpu_tensors if gpu_to_cpu else gpu_tensors
        self.block_bytes = np.array([t.stride(0) * t.element_size() for t in gpu_tensors],
                                    dtype=np.int64)
        self._copy = select_copy_fn(gpu_to_cpu)
        low, _ = torch.cuda.Stream.priority_range()
        self.stream = torch.cuda.Stream(priority=low)
        self._jobs: deque[tuple[int, torch.cuda.Event]] = deque()

    def _descriptors(self, src_blocks: list[int], dst_blocks: list[int]):
        n = len(src_blocks) * len(self.src_tensors)
        src_ptrs = torch.empty(n, dtype=torch.int64, pin_memory=True)
        dst_ptrs = torch.empty(n, dtype=torch.int64, pin_memory=True)
        sizes = torch.empty(n, dtype=torch.int64, pin_memory=True)
        s_ids = np.asarray(src_blocks, dtype=np.int64)
        d_ids = np.asarray(dst_blocks, dtype=np.int64)
        bpb = self.block_bytes[:, None]
        src_bases = np.array([t.data_ptr() for t in self.src_tensors], dtype=np.int64)[:, None]
        dst_bases = np.array([t.data_ptr() for t in self.dst_tensors], dtype=np.int64)[:, None]
        src_ptrs.numpy()[:] = (src_bases + s_ids[None, :] * bpb).ravel()
        dst_ptrs.numpy()[:] = (dst_bases + d_ids[None, :] * bpb).ravel()
        sizes.numpy()[:] = np.repeat(self.block_bytes, len(src_blocks))
        return src_ptrs, dst_ptrs, sizes

    def transfer_async(self, job_id: int, src_blocks: list[int], dst_blocks: list[int]) -> None:
        src_ptrs, dst_ptrs, sizes = self._descriptors(src_blocks, dst_blocks)
        if self.gpu_to_cpu:
            # stores read KV the forward may still be writing; loads only write blocks the
            # scheduler allocated for them this step, which no kernel reads yet
            self.stream.wait_stream(torch.cuda.current_stream())
        end = torch.cuda.Event()
        with torch.cuda.stream(self.stream):
            # expect: KVG004, KVG002
            self._copy(src_ptrs, dst_ptrs, sizes)
            end.record()
        self._jobs.append((job_id, end))

    def get_finished(self) -> list[int]:
        done = []
        while self._jobs and self._jobs[0][1].query():
            done.append(self._jobs.popleft()[0])
        return done
