"""Runs a SwapPlan as one cudaMemcpyBatchAsync on a private stream.

Swap-outs come first in the batch, swap-ins after them. The copy stream waits for the
compute stream before the batch, and the compute stream waits for the batch after it.
"""
import torch
from cuda.bindings import runtime as cudart

from .rt import Order, copy_attrs, ok


class BatchSwapExecutor:
    def __init__(self, gpu_blocks: torch.Tensor, cpu_blocks: torch.Tensor):
        assert gpu_blocks.is_cuda and cpu_blocks.is_pinned()
        self._gpu = gpu_blocks
        self._cpu = cpu_blocks
        self._block_bytes = gpu_blocks[0].numel() * gpu_blocks.element_size()
        self._stream = ok(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        self._ready = ok(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
        # the host side of every copy is pinned memory owned by this executor
        self._attrs = copy_attrs(Order.cudaMemcpySrcAccessOrderAny)

    def _gpu_ptr(self, block):
        return self._gpu.data_ptr() + block * self._block_bytes

    def _cpu_ptr(self, block):
        return self._cpu.data_ptr() + block * self._block_bytes

    def run(self, plan):
        """Issue the plan; returns an event recorded after it on the copy stream."""
        compute = torch.cuda.current_stream().cuda_stream
        ok(cudart.cudaEventRecord(self._ready, compute))
        ok(cudart.cudaStreamWaitEvent(self._stream, self._ready, 0))
        dsts, srcs = [], []
        for gpu, cpu in plan.swap_out:
            dsts.append(self._cpu_ptr(cpu))
            srcs.append(self._gpu_ptr(gpu))
        for cpu, gpu in plan.swap_in:
            dsts.append(self._gpu_ptr(gpu))
            srcs.append(self._cpu_ptr(cpu))
        n = len(dsts)
        # expect: KVG002
        ok(cudart.cudaMemcpyBatchAsync(dsts, srcs, [self._block_bytes] * n, n,
                                       [self._attrs], [0], 1, self._stream))
        done = ok(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
        ok(cudart.cudaEventRecord(done, self._stream))
        ok(cudart.cudaStreamWaitEvent(compute, done, 0))
        return done
