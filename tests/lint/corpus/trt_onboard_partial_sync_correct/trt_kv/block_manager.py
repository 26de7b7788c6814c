"""Block bookkeeping: free primary blocks, reusable blocks parked in the secondary pool by
prefix hash, and the transfers an iteration needs."""

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import List, Tuple


@dataclass
class TransferPlan:
    offloads: List[Tuple[int, int]] = field(default_factory=list)   # (gpu, host)
    onboards: List[Tuple[int, int]] = field(default_factory=list)   # (gpu, host)


class BlockManager:
    def __init__(self, num_primary, num_secondary):
        self.free_primary = list(range(num_primary))
        self.free_secondary = list(range(num_secondary))
        self.cached_primary: "OrderedDict[int, int]" = OrderedDict()   # hash -> gpu block
        self.cached_secondary: "OrderedDict[int, int]" = OrderedDict()  # hash -> host block

    def release(self, block_hashes, gpu_blocks):
        """Blocks of a finished request stay reusable in the primary pool until evicted."""
        for h, b in zip(block_hashes, gpu_blocks):
            self.cached_primary[h] = b

    def _take_primary(self, plan):
        if self.free_primary:
            return self.free_primary.pop()
        victim_hash, victim = self.cached_primary.popitem(last=False)
        if self.free_secondary:
            host = self.free_secondary.pop()
            plan.offloads.append((victim, host))
            self.cached_secondary[victim_hash] = host
        return victim

    def allocate(self, plan, block_hashes):
        blocks = []
        for h in block_hashes:
            if h in self.cached_primary:
                blocks.append(self.cached_primary.pop(h))
                continue
            gpu = self._take_primary(plan)
            if h in self.cached_secondary:
                host = self.cached_secondary.pop(h)
                plan.onboards.append((gpu, host))
                self.free_secondary.append(host)
            blocks.append(gpu)
        return blocks
