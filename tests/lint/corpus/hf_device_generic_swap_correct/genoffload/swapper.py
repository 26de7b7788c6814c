"""Swap preempted KV blocks out to pinned host memory and resumed ones back in, on a swap
stream of whatever accelerator the process runs on."""

import hashlib

import torch

from .device import accelerator_type, device_module, host_barrier


class BlockSwapper:
    def __init__(self, num_blocks, block_shape, dtype=torch.bfloat16):
        self.device_type = accelerator_type()
        self.mod = device_module(self.device_type)
        self.device = torch.device(self.device_type, self.mod.current_device())
        self.gpu_blocks = torch.zeros((num_blocks, *block_shape), dtype=dtype, device=self.device)
        self.host_blocks = torch.zeros((num_blocks, *block_shape), dtype=dtype, pin_memory=True)
        self.swap_stream = self.mod.Stream()
        self.compute_done = self.mod.Event()

    def swap_out(self, block_ids):
        # the model has just written these blocks on the compute stream
        self.swap_stream.wait_stream(torch.accelerator.current_stream())
        with self.mod.stream(self.swap_stream):
            for i in block_ids:
                self.host_blocks[i].copy_(self.gpu_blocks[i], non_blocking=True)

    def swap_in(self, block_ids):
        # the blocks were just freed: queued attention kernels may still read them
        self.compute_done.record(self.mod.current_stream())
        self.swap_stream.wait_event(self.compute_done)
        with self.mod.stream(self.swap_stream):
            for i in block_ids:
                self.gpu_blocks[i].copy_(self.host_blocks[i], non_blocking=True)
        self.mod.current_stream().wait_stream(self.swap_stream)

    def checksums(self, block_ids):
        host_barrier(self.device_type)
        return [hashlib.sha256(self.host_blocks[i].view(torch.uint8).numpy().tobytes()).hexdigest() for i in block_ids]
