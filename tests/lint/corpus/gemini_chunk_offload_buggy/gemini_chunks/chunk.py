from dataclasses import dataclass
from enum import Enum
from typing import Dict, Optional

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
        self.count_id = Chunk._total_number
        Chunk._total_number += 1
        self.chunk_size = chunk_size
        self.dtype = dtype
        self.utilized_size = 0
        self._element_size = torch.empty(0, dtype=dtype).element_size()
        self.pin_memory = pin_memory
        self.tensors_info: Dict[torch.Tensor, TensorInfo] = {}
        self.cuda_shard: Optional[torch.Tensor] = torch.zeros(
            chunk_size, dtype=dtype, device=torch.cuda.current_device()
        )
        self.cpu_shard: Optional[torch.Tensor] = None
        # recorded on whichever stream performed the last device-to-host move
        self.offload_event: Optional[torch.cuda.Event] = None

    @property
    def device_type(self) -> str:
        return "cuda" if self.cuda_shard is not None else "cpu"

    @property
    def shard_mem(self) -> int:
        return self.chunk_size * self._element_size

    @property
    def memory_usage(self) -> Dict[str, int]:
        usage = {"cpu": 0, "cuda": 0}
        usage[self.device_type] += self.shard_mem
        return usage

    @property
    def can_move(self) -> bool:
        return all(info.state in (TensorState.HOLD, TensorState.FREE) for info in self.tensors_info.values())

    def shard_move(self, device: torch.device, non_blocking: bool = False) -> None:
        """Move the shard of this chunk to `device`. Device-to-host moves run on the current stream."""
        if device.type == "cuda":
            if self.cuda_shard is not None:
                return
            if self.offload_event is not None:
                torch.cuda.current_stream().wait_event(self.offload_event)
            self.cuda_shard = torch.empty(self.chunk_size, dtype=self.dtype, device=device)
            self.cuda_shard.copy_(self.cpu_shard, non_blocking=non_blocking)
        else:
            if self.cuda_shard is None:
                return
            if self.cpu_shard is None:
                self.cpu_shard = torch.empty(self.chunk_size, dtype=self.dtype, pin_memory=self.pin_memory)
            stream = torch.cuda.current_stream()
            # expect: KVG001
            self.cpu_shard.copy_(self.cuda_shard, non_blocking=non_blocking)
            self.cuda_shard.record_stream(stream)
            self.offload_event = stream.record_event()
            self.cuda_shard = None

    def __repr__(self) -> str:
        return f"Chunk(id={self.count_id}, size={self.chunk_size}, device={self.device_type})"
