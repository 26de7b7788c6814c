import logging
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Optional

logger = logging.getLogger(__name__)


@dataclass
class KVCacheBlock:
    block_id: int
    block_hash: Optional[int] = None
    ref_count: int = 0
    secondary_idx: Optional[int] = None  # set once the block has a host copy


class BlockPool:
    """Primary (device) blocks; unreferenced blocks stay reusable in LRU order
    until they are claimed for something else."""

    def __init__(self, num_primary_blocks: int,
                 on_evict: Optional[Callable[[KVCacheBlock], None]] = None):
        self.blocks = [KVCacheBlock(i) for i in range(num_primary_blocks)]
        self.free_blocks: "OrderedDict[int, KVCacheBlock]" = OrderedDict(
            (b.block_id, b) for b in self.blocks
        )
        self.cached: dict[int, KVCacheBlock] = {}
        self._on_evict = on_evict

    def set_evict_callback(self, on_evict: Callable[[KVCacheBlock], None]) -> None:
        self._on_evict = on_evict

    def get_free_block(self) -> KVCacheBlock:
        if not self.free_blocks:
            raise RuntimeError("out of primary KV blocks")
        _, block = self.free_blocks.popitem(last=False)
        if block.block_hash is not None:
            self.cached.pop(block.block_hash, None)
            if self._on_evict is not None:
                self._on_evict(block)
            block.block_hash = None
            block.secondary_idx = None
        block.ref_count = 1
        return block

    def release(self, block: KVCacheBlock) -> None:
        block.ref_count -= 1
        if block.ref_count == 0:
            self.free_blocks[block.block_id] = block
