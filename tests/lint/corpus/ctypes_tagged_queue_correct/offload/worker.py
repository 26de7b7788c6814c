"""The connector worker: asks for stores after each forward and loads before it."""

import torch

from offload.mover import BlockMover


class ConnectorWorker:
    def __init__(self, num_gpu_blocks, num_cpu_blocks, block_bytes):
        gpu_cache = torch.empty(num_gpu_blocks, block_bytes, dtype=torch.uint8, device="cuda")
        cpu_cache = torch.empty(num_cpu_blocks, block_bytes, dtype=torch.uint8, pin_memory=True)
        self.mover = BlockMover(gpu_cache, cpu_cache, block_bytes)

    def start_loads(self, cpu_blocks, gpu_blocks):
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.mover.submit("load", cpu_blocks, gpu_blocks, ready)

    def finish_step(self, gpu_blocks, cpu_blocks):
        computed = torch.cuda.Event()
        computed.record(torch.cuda.current_stream())
        self.mover.submit("store", gpu_blocks, cpu_blocks, computed)
