"""Pipelined swapping of Adam moments between device staging buffers and NVMe files."""

import os

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.op_builder import AsyncIOBuilder

from .buffer_pool import SwapBufferPool


class PipelinedStateSwapper:
    def __init__(self, swap_folder, max_numel, block_size=1 << 20, queue_depth=8, num_buffers=4):
        self.swap_folder = swap_folder
        os.makedirs(swap_folder, exist_ok=True)
        self.aio_handle = AsyncIOBuilder().load().aio_handle(block_size, queue_depth, False, True, 1)
        self.pool = SwapBufferPool(num_buffers, 2 * max_numel)
        device = get_accelerator().device_name()
        self.exp_avg = torch.empty(max_numel, dtype=torch.float32, device=device)
        self.exp_avg_sq = torch.empty(max_numel, dtype=torch.float32, device=device)
        self.read_buffer = get_accelerator().pin_memory(torch.empty(2 * max_numel, dtype=torch.float32))
        self.read_done = None
        self.swap_stream = get_accelerator().Stream()
        self.pending = []

    def _path(self, key):
        return os.path.join(self.swap_folder, f"optimizer_state_{key}.swp")

    def swap_in(self, key, numel, first=False):
        exp_avg = self.exp_avg.narrow(0, 0, numel)
        exp_avg_sq = self.exp_avg_sq.narrow(0, 0, numel)
        compute = get_accelerator().current_stream()
        if first:
            # the previous partition's swap-out may still be reading the staging buffers
            compute.wait_stream(self.swap_stream)
            exp_avg.zero_()
            exp_avg_sq.zero_()
            return exp_avg, exp_avg_sq
        if self.read_done is not None:
            self.read_done.synchronize()
        staged = self.read_buffer.narrow(0, 0, 2 * numel)
        self.aio_handle.async_pread(staged, self._path(key))
        self.aio_handle.wait()
        with get_accelerator().stream(self.swap_stream):
            # expect: KVG004
            exp_avg.copy_(staged.narrow(0, 0, numel), non_blocking=True)
            # expect: KVG004
            exp_avg_sq.copy_(staged.narrow(0, numel, numel), non_blocking=True)
            self.read_done = get_accelerator().Event()
            self.read_done.record()
        compute.wait_stream(self.swap_stream)
        return exp_avg, exp_avg_sq

    def swap_out(self, key, numel):
        if not self.pool.free:
            self.flush()
        idx, buf = self.pool.get()
        with get_accelerator().stream(self.swap_stream):
            # expect: KVG001
            buf.allocate(numel).copy_(self.exp_avg.narrow(0, 0, numel), non_blocking=True)
            # expect: KVG001
            buf.allocate(numel).copy_(self.exp_avg_sq.narrow(0, 0, numel), non_blocking=True)
            done = get_accelerator().Event()
            done.record()
        buf.path = self._path(key)
        self.pending.append((idx, buf, done))

    def flush(self):
        for _, buf, done in self.pending:
            # expect: KVG003
            self.aio_handle.async_pwrite(buf.used(), buf.path)
        self.aio_handle.wait()
        for idx, _, _ in self.pending:
            self.pool.release(idx)
        self.pending = []
