"""Parameters packed into one flat chunk whose master copy stays in pinned host memory."""
from typing import Optional

import torch

from .chunk_config import PIN_HOST_CHUNKS


class HostChunk:
    def __init__(self, chunk_id: int, numel: int, dtype: torch.dtype):
        self.chunk_id = chunk_id
        self.cpu_shard = torch.empty(numel, dtype=dtype, pin_memory=PIN_HOST_CHUNKS)
        self.cuda_block: Optional[torch.Tensor] = None
        self.params: list[tuple[torch.nn.Parameter, int]] = []
        self.used = 0

    def append(self, param: torch.nn.Parameter) -> None:
        n = param.numel()
        self.cpu_shard[self.used:self.used + n].copy_(param.data.view(-1))
        self.params.append((param, self.used))
        param.data = self.cpu_shard[self.used:self.used + n].view(param.shape)
        self.used += n

    def has_room(self, numel: int) -> bool:
        return self.used + numel <= self.cpu_shard.numel()

    @property
    def is_gathered(self) -> bool:
        return self.cuda_block is not None

    def bind(self, block: Optional[torch.Tensor]) -> None:
        self.cuda_block = block
        src = block if block is not None else self.cpu_shard
        for param, offset in self.params:
            param.data = src[offset:offset + param.numel()].view(param.shape)
