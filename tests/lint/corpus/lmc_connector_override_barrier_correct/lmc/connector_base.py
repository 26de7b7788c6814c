"""Connector base class: owns the per-device store streams and the ordering of stores
behind the engine's forward."""

import abc
from typing import Dict, List

import torch

from lmc.memory import MemoryObj


class GPUConnectorInterface(metaclass=abc.ABCMeta):
    def __init__(self, num_layers: int, hidden_dim: int):
        self.num_layers = num_layers
        self.hidden_dim = hidden_dim
        self._store_streams: Dict[int, torch.cuda.Stream] = {}

    @property
    def store_stream(self) -> torch.cuda.Stream:
        device = torch.cuda.current_device()
        if device not in self._store_streams:
            self._store_streams[device] = torch.cuda.Stream(device=device)
        return self._store_streams[device]

    def _wait_for_compute(self) -> None:
        """Order the store stream behind the stream the engine wrote the KV cache on."""
        self.store_stream.wait_stream(torch.cuda.current_stream())

    def get_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([2, self.num_layers, num_tokens, self.hidden_dim])

    @abc.abstractmethod
    def from_gpu(self, memory_obj: MemoryObj, start: int, end: int, **kwargs) -> None:
        raise NotImplementedError

    def batched_from_gpu(self, memory_objs: List[MemoryObj], starts: List[int],
                         ends: List[int], **kwargs) -> None:
        self._wait_for_compute()
        with torch.cuda.stream(self.store_stream):
            for memory_obj, start, end in zip(memory_objs, starts, ends):
                self.from_gpu(memory_obj, start, end, **kwargs)
        self.store_stream.synchronize()
