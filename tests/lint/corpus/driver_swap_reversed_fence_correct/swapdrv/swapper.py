"""Swaps preempted sequences' KV blocks out to pinned host memory and back in, with the
driver API on a stream of its own so that the copies overlap the model."""

from typing import Sequence

import torch
from cuda.bindings import driver as cu

from . import cu as drv
from .pools import BlockPool, PoolSpec


class DriverBlockSwapper:
    def __init__(self, num_layers: int, gpu_blocks: int, cpu_blocks: int, block_bytes: int):
        self.device_pool = BlockPool.on_device(PoolSpec(num_layers, gpu_blocks, block_bytes))
        self.host_pool = BlockPool.pinned(PoolSpec(num_layers, cpu_blocks, block_bytes))
        self.block_bytes = block_bytes
        self.num_layers = num_layers
        self._swap = drv.new_stream()
        self._fence = drv.new_event()
        self._done = drv.new_event()

    @staticmethod
    def _compute_stream():
        return cu.CUstream(torch.cuda.current_stream().cuda_stream)

    def _order_with_compute(self):
        # the model's queued kernels still write the blocks we read and read the blocks
        # we overwrite: the swap stream starts after them
        drv.record(self._fence, self._compute_stream())
        drv.wait(self._swap, self._fence)

    def swap_out(self, gpu_blocks: Sequence[int], cpu_blocks: Sequence[int]) -> None:
        for layer in range(self.num_layers):
            for g, c in zip(gpu_blocks, cpu_blocks):
                drv.check(cu.cuMemcpyDtoHAsync(
                    self.host_pool.addr(layer, c),
                    self.device_pool.addr(layer, g),
                    self.block_bytes,
                    self._swap,
                ))

    def swap_in(self, cpu_blocks: Sequence[int], gpu_blocks: Sequence[int]) -> None:
        for layer in range(self.num_layers):
            for c, g in zip(cpu_blocks, gpu_blocks):
                drv.check(cu.cuMemcpyHtoDAsync(
                    self.device_pool.addr(layer, g),
                    self.host_pool.addr(layer, c),
                    self.block_bytes,
                    self._swap,
                ))

    def run_swaps(self, swap_out, swap_in) -> None:
        """Issue this step's swaps, then make the model's stream wait for them."""
        if not swap_out and not swap_in:
            return
        self._order_with_compute()
        if swap_out:
            self.swap_out(*swap_out)
        if swap_in:
            self.swap_in(*swap_in)
        drv.record(self._done, self._swap)
        drv.wait(self._compute_stream(), self._done)
