"""Optimizer-state swap-out in the shape of DeepSpeed's partitioned optimizer swapper: the swap
stream waits for the compute stream, each state tensor is copied into a pinned buffer from the
pool, an event is recorded on the swap stream after the copy, and buffer and event go to the
writer thread, which waits on the event."""

import os

import torch
from deepspeed.accelerator import get_accelerator

from swapio.buffers import PinnedBufferPool
from swapio.writer import StateFileWriter


class OptimizerStateSwapper:
    def __init__(self, swap_folder, max_numel, buffer_count=4):
        self.swap_folder = swap_folder
        self.pool = PinnedBufferPool(buffer_count, max_numel)
        self.writer = StateFileWriter(self.pool)
        self.swap_stream = get_accelerator().Stream()

    def _path(self, param_id, key):
        return os.path.join(self.swap_folder, f"{param_id}_{key}.tensor.swp")

    def swap_out(self, param_id, state):
        self.swap_stream.wait_stream(get_accelerator().current_stream())
        for key, tensor in state.items():
            if not torch.is_tensor(tensor) or tensor.dim() == 0:
                continue
            buffer = self.pool.acquire()
            numel = tensor.numel()
            with get_accelerator().stream(self.swap_stream):
                buffer[:numel].copy_(tensor.view(-1), non_blocking=True)
            copied = get_accelerator().Event()
            copied.record(self.swap_stream)
            self.writer.submit(self._path(param_id, key), buffer, numel, copied)

    def swap_out_all(self, optimizer):
        for param_id, (param, state) in enumerate(optimizer.state.items()):
            self.swap_out(param_id, state)
        self.writer.flush()
