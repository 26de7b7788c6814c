# SPDX-License-Identifier: Apache-2.0
"""Moves KV chunks between vLLM's paged GPU KV cache and pinned memory objects."""

from typing import List, Sequence
import abc
import logging

import torch

from .memory_management import MemoryObj

logger = logging.getLogger(__name__)


class GPUConnectorInterface(metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def from_gpu(self, memory_obj: MemoryObj, block_ids: Sequence[int], **kwargs) -> None:
        raise NotImplementedError

    @abc.abstractmethod
    def to_gpu(self, memory_obj: MemoryObj, block_ids: Sequence[int], **kwargs) -> None:
        raise NotImplementedError

    @abc.abstractmethod
    def get_shape(self, num_blocks: int) -> torch.Size:
        raise NotImplementedError


class VLLMPagedMemGPUConnector(GPUConnectorInterface):
    """kvcaches: one CUDA tensor per layer, [num_blocks, 2, block_size, num_heads, head_size].
    Memory objects hold [num_layers, num_blocks_in_chunk, 2, block_size, num_heads, head_size]."""

    def __init__(self, num_layers: int, block_size: int, num_heads: int, head_size: int, device: torch.device):
        self.num_layers = num_layers
        self.block_size = block_size
        self.num_heads = num_heads
        self.head_size = head_size
        self.device = device
        self.store_stream = torch.cuda.Stream(device=device)
        self.load_stream = torch.cuda.Stream(device=device)

    def get_shape(self, num_blocks: int) -> torch.Size:
        return torch.Size([self.num_layers, num_blocks, 2, self.block_size, self.num_heads, self.head_size])

    def from_gpu(self, memory_obj: MemoryObj, block_ids: Sequence[int], **kwargs) -> None:
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        if len(kvcaches) != self.num_layers:
            raise ValueError(f"expected {self.num_layers} layers, got {len(kvcaches)}")
        dst = memory_obj.tensor
        with torch.cuda.stream(self.store_stream):
            for layer_id, layer_cache in enumerate(kvcaches):
                for i, block_id in enumerate(block_ids):
                    # expect: KVG001
                    dst[layer_id, i].copy_(layer_cache[block_id], non_blocking=True)

    def to_gpu(self, memory_obj: MemoryObj, block_ids: Sequence[int], **kwargs) -> None:
        kvcaches: List[torch.Tensor] = kwargs["kvcaches"]
        src = memory_obj.tensor
        # blocks handed to a retrieve may still be read by queued kernels of freed requests
        self.load_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.load_stream):
            for layer_id, layer_cache in enumerate(kvcaches):
                for i, block_id in enumerate(block_ids):
                    layer_cache[block_id].copy_(src[layer_id, i], non_blocking=True)
        # the forward that reads these blocks runs on the current stream
        torch.cuda.current_stream().wait_stream(self.load_stream)
        # memory_obj goes back to the allocator after this returns
        self.load_stream.synchronize()
