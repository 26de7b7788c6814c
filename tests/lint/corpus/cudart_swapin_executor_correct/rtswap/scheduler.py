"""Preempt-by-swap scheduling: victims are swapped out to free their GPU blocks; a
resumed request gets GPU blocks from the free list (often ones just freed by a finished
request whose decode kernels are still queued) and its KV swapped back in."""
from typing import Dict, List

from .pools import BlockPool
from .swap import BlockSwapper


class Scheduler:
    def __init__(self, num_gpu_blocks: int, num_host_blocks: int, block_bytes: int):
        self.gpu = BlockPool(num_gpu_blocks, block_bytes, "cuda")
        self.host = BlockPool(num_host_blocks, block_bytes, "cpu")
        self.swapper = BlockSwapper(self.gpu, self.host)
        self.blocks: Dict[str, List[int]] = {}
        self.swapped: Dict[str, List[int]] = {}

    def finish(self, req_id: str) -> None:
        self.gpu.give_back(self.blocks.pop(req_id))

    def preempt(self, req_id: str) -> None:
        gpu_blocks = self.blocks.pop(req_id)
        host_blocks = self.host.take(len(gpu_blocks))
        self.swapper.swap_out(list(zip(gpu_blocks, host_blocks)))
        self.swapped[req_id] = host_blocks
        self.gpu.give_back(gpu_blocks)

    def resume(self, req_id: str) -> None:
        host_blocks = self.swapped.pop(req_id)
        gpu_blocks = self.gpu.take(len(host_blocks))
        ticket = self.swapper.swap_in(list(zip(host_blocks, gpu_blocks)))
        self.swapper.collect(ticket)
        self.blocks[req_id] = gpu_blocks
        self.host.give_back(host_blocks)
