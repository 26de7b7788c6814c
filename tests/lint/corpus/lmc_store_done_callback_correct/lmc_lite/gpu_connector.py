"""GPU connector between vLLM's paged KV cache (per layer [2, num_blocks, block_size,
heads, head_size]) and memory objects ([2, num_layers, tokens, heads * head_size])."""

import abc
from typing import List

import torch

from lmc_lite.memory import MemoryObj


class GPUConnectorInterface(metaclass=abc.ABCMeta):

    @abc.abstractmethod
    def batched_from_gpu(self, memory_objs: List[MemoryObj], starts: List[int], ends: List[int],
                         **kwargs) -> None:
        ...


class VLLMPagedMemGPUConnector(GPUConnectorInterface):

    def __init__(self, hidden_dim: int):
        self.hidden_dim = hidden_dim
        self.store_stream = torch.cuda.Stream()

    def batched_from_gpu(self, memory_objs, starts, ends, **kwargs) -> None:
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        slot_mapping: torch.Tensor = kwargs["slot_mapping"]
        ready: torch.cuda.Event = kwargs["ready"]
        self.store_stream.wait_event(ready)
        with torch.cuda.stream(self.store_stream):
            for obj, start, end in zip(memory_objs, starts, ends):
                slots = slot_mapping[start:end]
                for layer, kv in enumerate(kvcaches):
                    flat = kv.view(2, -1, self.hidden_dim)
                    obj.tensor[:, layer, :end - start].copy_(flat[:, slots], non_blocking=True)
        # this runs on a store worker thread: block it (not the engine) until the chunks have
        # landed, so that whoever the job's future reports to reads complete memory objects
        self.store_stream.synchronize()
