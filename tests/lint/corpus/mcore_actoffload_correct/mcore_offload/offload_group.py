# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

from typing import Dict, List

import torch

from .tensor_pool import GPUTensorPool


class OffloadTensorGroup:
    """Saved-for-backward tensors of one module, moved to host as a unit."""

    def __init__(self, name: str, layer_idx: int):
        self.name = name
        self.layer_idx = layer_idx
        self._gpu: Dict[int, torch.Tensor] = {}
        self._cpu: Dict[int, torch.Tensor] = {}
        self._reloaded: List[torch.Tensor] = []
        self.offload_event = torch.cuda.Event()
        self.reload_event = torch.cuda.Event()
        self.state = "gpu"

    def push(self, tag: int, tensor: torch.Tensor) -> None:
        self._gpu[tag] = tensor

    def offload(self, d2h_stream: torch.cuda.Stream, pin_memory: bool) -> None:
        d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(d2h_stream):
            for tag, tensor in self._gpu.items():
                cpu = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=pin_memory)
                cpu.copy_(tensor, non_blocking=pin_memory)
                tensor.record_stream(d2h_stream)
                self._cpu[tag] = cpu
            self.offload_event.record(d2h_stream)
        self._gpu.clear()
        self.state = "cpu"

    def reload(self, h2d_stream: torch.cuda.Stream, pool: GPUTensorPool, device: torch.device) -> None:
        if self.state != "cpu":
            return
        h2d_stream.wait_event(self.offload_event)
        h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(h2d_stream):
            for tag, cpu in self._cpu.items():
                gpu = pool.acquire(cpu.shape, cpu.dtype, device)
                gpu.copy_(cpu, non_blocking=True)
                self._gpu[tag] = gpu
                self._reloaded.append(gpu)
            self.reload_event.record(h2d_stream)
        self._cpu.clear()
        self.state = "reloading"

    def pop(self, tag: int) -> torch.Tensor:
        if self.state == "reloading":
            torch.cuda.current_stream().wait_event(self.reload_event)
            self.state = "gpu"
        tensor = self._gpu.pop(tag)
        tensor.record_stream(torch.cuda.current_stream())
        return tensor

    def take_reloaded(self) -> List[torch.Tensor]:
        reloaded, self._reloaded = self._reloaded, []
        return reloaded
