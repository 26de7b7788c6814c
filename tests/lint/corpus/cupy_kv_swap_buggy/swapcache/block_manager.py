from __future__ import annotations

import logging
from collections import deque

logger = logging.getLogger(__name__)


class BlockAllocator:
    """Free-list allocator over block ids of one device."""

    def __init__(self, num_blocks: int, device: str) -> None:
        self.device = device
        self._free: deque[int] = deque(range(num_blocks))

    def allocate(self) -> int:
        if not self._free:
            raise RuntimeError(f"out of {self.device} blocks")
        return self._free.popleft()

    def free(self, block_id: int) -> None:
        self._free.append(block_id)

    @property
    def num_free(self) -> int:
        return len(self._free)


class SwapPlanner:
    """Turns preempt/resume decisions into gpu<->cpu block mappings."""

    def __init__(self, gpu: BlockAllocator, cpu: BlockAllocator) -> None:
        self.gpu = gpu
        self.cpu = cpu

    def plan_swap_out(self, gpu_blocks: list[int]) -> dict[int, int]:
        mapping = {}
        for gpu_id in gpu_blocks:
            mapping[gpu_id] = self.cpu.allocate()
            self.gpu.free(gpu_id)
        logger.debug("swap out %d blocks", len(mapping))
        return mapping

    def plan_swap_in(self, cpu_blocks: list[int]) -> dict[int, int]:
        mapping = {}
        for cpu_id in cpu_blocks:
            mapping[cpu_id] = self.gpu.allocate()
            self.cpu.free(cpu_id)
        logger.debug("swap in %d blocks", len(mapping))
        return mapping
