"""What one scheduler step asks the executor to move."""
from dataclasses import dataclass, field
from typing import List, Tuple


@dataclass
class SwapPlan:
    # (gpu_block, cpu_block): device -> host
    swap_out: List[Tuple[int, int]] = field(default_factory=list)
    # (cpu_block, gpu_block): host -> device. The scheduler never swaps a block in while its
    # swap-out is still in flight, and never hands a swap-in a GPU block swapped out in the
    # same plan (copies within one batch are unordered).
    swap_in: List[Tuple[int, int]] = field(default_factory=list)

    def __bool__(self):
        return bool(self.swap_out or self.swap_in)
