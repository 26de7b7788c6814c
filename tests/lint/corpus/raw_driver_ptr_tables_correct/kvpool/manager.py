"""The executor-side manager: owns per-layer K/V pools on the GPU and in pinned host memory,
builds address tables with the helpers, and asks the mover for stores after each forward
and loads before the next one, passing the compute stream's handle."""

import torch
from cuda.bindings import driver

from kvpool.pointers import layer_tables
from kvpool.transfer import DriverBlockMover


class OffloadManager:
    def __init__(self, num_layers, num_gpu_blocks, num_host_blocks, block_bytes):
        self.block_bytes = block_bytes
        self.gpu_layers = [
            (
                torch.empty((num_gpu_blocks, block_bytes), dtype=torch.uint8, device="cuda"),
                torch.empty((num_gpu_blocks, block_bytes), dtype=torch.uint8, device="cuda"),
            )
            for _ in range(num_layers)
        ]
        self.host_layers = [
            (
                torch.empty((num_host_blocks, block_bytes), dtype=torch.uint8).pin_memory(),
                torch.empty((num_host_blocks, block_bytes), dtype=torch.uint8).pin_memory(),
            )
            for _ in range(num_layers)
        ]
        self.mover = DriverBlockMover(block_bytes)

    def _compute(self):
        return driver.CUstream(torch.cuda.current_stream().cuda_stream)

    def after_forward(self, gpu_blocks, host_blocks):
        device_table = layer_tables(self.gpu_layers, gpu_blocks, self.block_bytes)
        host_table = layer_tables(self.host_layers, host_blocks, self.block_bytes)
        self.mover.store(device_table, host_table, self._compute())

    def before_forward(self, host_blocks, gpu_blocks):
        host_table = layer_tables(self.host_layers, host_blocks, self.block_bytes)
        device_table = layer_tables(self.gpu_layers, gpu_blocks, self.block_bytes)
        self.mover.load(host_table, device_table, self._compute())
