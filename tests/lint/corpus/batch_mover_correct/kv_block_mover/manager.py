import logging
from dataclasses import dataclass, field
from typing import Callable

from cuda.bindings import driver

from .mover import BlockMover

logger = logging.getLogger(__name__)


@dataclass
class StepPlan:
    evict: list[tuple[int, int]] = field(default_factory=list)  # (block_id, spill_slot)
    onboard: list[tuple[int, int]] = field(default_factory=list)  # (prefetch_slot, block_id)
    batch: object = None


class OffloadManager:
    """Per step: spill evicted blocks, load prefetched hits into the freed blocks, run forward."""

    def __init__(self, mover: BlockMover, forward: Callable[[object, int], None],
                 compute_stream_handle: int):
        self._mover = mover
        self._forward = forward
        self._compute_handle = compute_stream_handle
        self._compute = driver.CUstream(compute_stream_handle)
        self.steps = 0

    def step(self, plan: StepPlan) -> None:
        if plan.evict:
            self._mover.offload(plan.evict, self._compute)
            logger.debug("spilled %d blocks", len(plan.evict))
        if plan.onboard:
            self._mover.onboard(plan.onboard, self._compute)
            logger.debug("onboarded %d blocks", len(plan.onboard))
        self._forward(plan.batch, self._compute_handle)
        self.steps += 1

    def drain(self) -> None:
        self._mover.synchronize()
        logger.info("block mover drained after %d steps", self.steps)
