"""Preemption and resumption of requests in a continuous-batching loop."""

import torch

from .swap_space import PagedSwapSpace


class SwapScheduler:
    def __init__(self, num_layers, num_blocks, block_size, heads, head_dim, num_host_blocks, device="cuda"):
        shape = (num_blocks, 2, block_size, heads, head_dim)
        self.gpu_cache = [torch.zeros(shape, dtype=torch.bfloat16, device=device) for _ in range(num_layers)]
        self.swap = PagedSwapSpace(self.gpu_cache, num_host_blocks)
        self.free_gpu_blocks = list(range(num_blocks))
        self.free_host_blocks = list(range(num_host_blocks))
        self.block_tables = {}

    def preempt(self, request_id):
        gpu_blocks = self.block_tables.pop(request_id)
        host_blocks = [self.free_host_blocks.pop() for _ in gpu_blocks]
        self.swap.swap_out(request_id, list(zip(gpu_blocks, host_blocks)))
        self.free_gpu_blocks.extend(gpu_blocks)

    def resume(self, request_id, num_blocks):
        gpu_blocks = [self.free_gpu_blocks.pop() for _ in range(num_blocks)]
        self.swap.swap_in(request_id, gpu_blocks)
        self.block_tables[request_id] = gpu_blocks
