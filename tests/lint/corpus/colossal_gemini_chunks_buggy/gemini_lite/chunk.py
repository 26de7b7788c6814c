from dataclasses import dataclass
from enum import Enum
from typing import Optional

import torch


class TensorState(Enum):
    FREE = 0
    COMPUTE = 1
    HOLD = 2
    HOLD_AFTER_BWD = 3
    READY_FOR_REDUCE = 4


@dataclass
class TensorInfo:
    state: TensorState
    offset: int
    end: int


class Chunk:
    _total_number = 0

    def __init__(self, chunk_size: int, dtype: torch.dtype, pin_memory: bool = True):
        self.chunk_id = Chunk._total_number
        Chunk._total_number += 1
        self.chunk_size = chunk_size
        self.dtype = dtype
        self.pin_memory = pin_memory
        self.utilized_size = 0
        self.tensors_info: dict[torch.Tensor, TensorInfo] = {}
        self.cuda_global_chunk: Optional[torch.Tensor] = torch.zeros(
            chunk_size, dtype=dtype, device=torch.cuda.current_device())
        self.cpu_shard: Optional[torch.Tensor] = None
        self.offload_event: Optional[torch.cuda.Event] = None

    @property
    def is_gathered(self) -> bool:
        return self.cuda_global_chunk is not None

    @property
    def device_type(self) -> str:
        return "cuda" if self.is_gathered else "cpu"

    @property
    def chunk_mem(self) -> int:
        return self.chunk_size * torch.tensor([], dtype=self.dtype).element_size()

    def append_tensor(self, tensor: torch.Tensor) -> None:
        new_size = self.utilized_size + tensor.numel()
        if new_size > self.chunk_size:
            raise ValueError("chunk is full")
        self.cuda_global_chunk[self.utilized_size:new_size].copy_(tensor.data.flatten())
        self.tensors_info[tensor] = TensorInfo(TensorState.HOLD, self.utilized_size, new_size)
        self.utilized_size = new_size

    def __hash__(self) -> int:
        return hash(self.chunk_id)
