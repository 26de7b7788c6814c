"""The engine: after each step, the blocks of finished requests are mirrored to the host."""

from typing import List

import torch

from kvset.host_set import HostBlockSet


class Engine:
    def __init__(self, model, gpu_cache: torch.Tensor) -> None:
        self.model = model
        self.gpu_cache = gpu_cache
        self.mirror = HostBlockSet(gpu_cache, capacity=1024)

    def step(self, batch, finished_blocks: List[int]) -> torch.Tensor:
        logits = self.model(batch, self.gpu_cache)
        for block_id in finished_blocks:
            self.mirror.add(block_id)
        return logits
