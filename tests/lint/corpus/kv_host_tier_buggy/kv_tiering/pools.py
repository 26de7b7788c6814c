import collections

import torch

from .config import KvCacheTierConfig
from . import device as dev


class BlockPool:

    def __init__(self, config: KvCacheTierConfig, num_blocks: int,
                 on_host: bool):
        shape = (num_blocks, ) + config.block_shape
        if on_host:
            self.data = torch.empty(shape, dtype=config.dtype, pin_memory=True)
        else:
            self.data = torch.empty(shape,
                                    dtype=config.dtype,
                                    device=dev.accelerator())
        self._free = collections.deque(range(num_blocks))

    @property
    def num_free(self) -> int:
        return len(self._free)

    def allocate(self, count: int) -> list[int]:
        if count > len(self._free):
            raise RuntimeError(f"pool exhausted: need {count}, "
                               f"have {len(self._free)}")
        return [self._free.popleft() for _ in range(count)]

    def release(self, block_ids: list[int]) -> None:
        self._free.extend(block_ids)
