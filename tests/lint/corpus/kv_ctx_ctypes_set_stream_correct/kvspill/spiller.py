"""Spills KV blocks of an engine's GPU cache to pinned host memory and restores them."""

import zlib

import torch

from kvspill.attrs import SRC_ORDER_STREAM, make_attrs
from kvspill.cuda_batch import batch_copy
from kvspill.streams import side_stream


class BlockSpiller:
    def __init__(self, gpu_kv, num_host_blocks):
        self.gpu_kv = gpu_kv
        self.host_kv = torch.empty((num_host_blocks, *gpu_kv.shape[1:]), dtype=gpu_kv.dtype,
                                   pin_memory=True)
        self.block_bytes = gpu_kv.stride(0) * gpu_kv.element_size()
        self.compute = torch.cuda.current_stream()
        self.side = torch.cuda.Stream()
        self.pending = []

    def spill(self, gpu_blocks, host_blocks):
        srcs = [self.gpu_kv.data_ptr() + b * self.block_bytes for b in gpu_blocks]
        dsts = [self.host_kv.data_ptr() + b * self.block_bytes for b in host_blocks]
        with side_stream(self.side, self.compute) as s:
            batch_copy(dsts, srcs, self.block_bytes, make_attrs(SRC_ORDER_STREAM), s)
            self.pending.append(s.record_event())

    def spill_with_checksums(self, gpu_blocks, host_blocks):
        self.spill(gpu_blocks, host_blocks)
        for ev in self.pending:
            ev.synchronize()
        self.pending.clear()
        return [zlib.crc32(memoryview(self.host_kv[h].numpy())) for h in host_blocks]

    def restore(self, host_blocks, gpu_blocks):
        prev = torch.cuda.current_stream()
        self.side.wait_stream(prev)
        torch.cuda.set_stream(self.side)
        try:
            for h, g in zip(host_blocks, gpu_blocks):
                self.gpu_kv[g].copy_(self.host_kv[h], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        finally:
            torch.cuda.set_stream(prev)
        prev.wait_event(done)
