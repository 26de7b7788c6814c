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
        with self.mod.stream(self.swap_stream):
            for i in block_ids:
                # expect: KVG001
                self.host_blocks[i].copy_(self.gpu_blocks[i], non_blocking=True)

    def swap_in(self, block_ids):
        with self.mod.stream(self.swap_stream):
            for i in block_ids:
                # expect: KVG004
                self.gpu_blocks[i].copy_(self.host_blocks[i], non_blocking=True)
        self.mod.current_stream().wait_stream(self.swap_stream)

    def checksums(self, block_ids):
        # expect: KVG003
        return [hashlib.sha256(self.host_blocks[i].view(torch.uint8).numpy().tobytes()).hexdigest() for i in block_ids]
