"""Devices and I/O streams used by the offloading schedule."""
from __future__ import annotations

import torch


class TorchDevice:

    def __init__(self, name: str):
        self.name = name
        self.dev = torch.device(name)

    @property
    def is_gpu(self) -> bool:
        return self.dev.type == "cuda"

    def allocate(self, shape, dtype, pin_memory: bool = False) -> torch.Tensor:
        if self.is_gpu:
            return torch.empty(shape, dtype=dtype, device=self.dev)
        return torch.empty(shape, dtype=dtype, pin_memory=pin_memory)


class ExecutionEnv:

    def __init__(self, gpu: str = "cuda:0"):
        self.gpu = TorchDevice(gpu)
        self.cpu = TorchDevice("cpu")
        self.load_weight_stream = torch.cuda.Stream()
        self.load_cache_stream = torch.cuda.Stream()
        self.store_cache_stream = torch.cuda.Stream()

    @staticmethod
    def sync() -> None:
        torch.cuda.synchronize()
