"""Pinned chunk buffers in the shape of LMCache's TensorMemoryObj: each object is a pinned
[2, num_layers, chunk_tokens, num_heads, head_size] tensor plus the chunk's key."""

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class CacheEngineKey:
    model_name: str
    worker_id: int
    chunk_hash: str

    def to_string(self) -> str:
        return f"{self.model_name}@{self.worker_id}@{self.chunk_hash}"


class TensorMemoryObj:
    def __init__(self, shape, dtype: torch.dtype):
        self.tensor = torch.empty(shape, dtype=dtype, pin_memory=True)

    @property
    def byte_array(self) -> memoryview:
        return memoryview(self.tensor.view(torch.uint8).numpy())
