import functools
from collections import deque

import numpy as np
import torch
from vllm import _custom_ops as ops
from vllm.platforms import current_platform


def choose_copy_fn(gpu_to_cpu: bool, chunk_bytes: int):
    """The batched copy a handler uses, bound once at init time."""
    if gpu_to_cpu or chunk_bytes >= 1 << 16:
        return ops.swap_blocks_batch
    return functools.partial(ops.swap_blocks_batch, is_src_access_order_any=False)


def fill_block_pointers(block_ids: np.ndarray, out: np.ndarray, tensor: torch.Tensor) -> None:
    """Write the address of each block of ``tensor`` into ``out``."""
    base = tensor.data_ptr()
    row_bytes = tensor.stride(0) * tensor.element_size()
    out[:] = base + block_ids.astype(np.uint64)[: len(out)] * row_bytes


def new_descriptors(n: int):
    return tuple(torch.empty(n, dtype=torch.int64, pin_memory=True) for _ in range(3))


class DirectionHandler:
    def __init__(self, gpu_tensors, cpu_tensors, gpu_to_cpu: bool):
        self.gpu_to_cpu = gpu_to_cpu
        self.src_tensors = gpu_tensors if gpu_to_cpu else cpu_tensors
        self.dst_tensors = cpu_tensors if gpu_to_cpu else gpu_tensors
        self.row_bytes = [t.stride(0) * t.element_size() for t in gpu_tensors]
        self._copy = choose_copy_fn(gpu_to_cpu, max(self.row_bytes))
        self._streams = []
        self._tables = []
        self._jobs = deque()

    def transfer_async(self, job_id: int, spec) -> bool:
        src_spec, dst_spec = spec
        per_tensor = len(src_spec.block_ids)
        n = per_tensor * len(self.src_tensors)
        src_table, dst_table, size_table = self._tables.pop() if self._tables else new_descriptors(n)
        src = src_table[:n]
        dst = dst_table[:n]
        sizes = size_table[:n]
        src_view = src.numpy()
        dst_view = dst.numpy()
        size_view = sizes.numpy()
        at = 0
        for i in range(len(self.src_tensors)):
            end = at + per_tensor
            fill_block_pointers(src_spec.block_ids, src_view[at:end], self.src_tensors[i])
            fill_block_pointers(dst_spec.block_ids, dst_view[at:end], self.dst_tensors[i])
            size_view[at:end] = self.row_bytes[i]
            at = end

        stream = self._streams.pop() if self._streams else current_platform.Stream()
        done = torch.Event()
        if self.gpu_to_cpu:
            # stores read blocks the forward may still be writing
            stream.wait_stream(current_platform.current_stream())
        if self._jobs:
            stream.wait_event(self._jobs[-1][1])
        with current_platform.stream(stream):
            # expect: KVG004
            self._copy(src, dst, sizes)
            done.record(stream)
        self._jobs.append((job_id, done, stream, (src_table, dst_table, size_table)))
        return True

    def get_finished(self) -> list[int]:
        finished = []
        while self._jobs and self._jobs[0][1].query():
            job_id, _, stream, tables = self._jobs.popleft()
            self._streams.append(stream)
            self._tables.append(tables)
            finished.append(job_id)
        return finished
