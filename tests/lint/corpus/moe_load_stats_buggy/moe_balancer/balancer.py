import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Optional

import numpy as np
import torch

from . import rt
from .config import MoeLoadBalancerConfig
from .planner import plan_placement
from .stats import ExpertStatistic

logger = logging.getLogger(__name__)


class MoeLoadBalancer:

    def __init__(self, config: MoeLoadBalancerConfig):
        self.config = config
        self.statistic = ExpertStatistic(config)
        self.slot_to_expert = (torch.arange(
            config.num_slots, dtype=torch.int32, device="cuda") %
                               config.num_experts).repeat(
                                   len(config.layer_ids), 1)
        self._pool = ThreadPoolExecutor(max_workers=config.planner_workers,
                                        thread_name_prefix="moe-planner")
        self._inflight: Optional[Future] = None
        self._lock = threading.Lock()
        self._pending_plan: Optional[np.ndarray] = None
        self._iter = 0

    def begin_iteration(self) -> None:
        with self._lock:
            plan, self._pending_plan = self._pending_plan, None
        if plan is not None:
            self.slot_to_expert.copy_(torch.from_numpy(plan))

    def end_iteration(self) -> None:
        self._iter += 1
        if self._iter % self.config.update_interval:
            return
        if self._inflight is not None and not self._inflight.done():
            logger.debug("planner busy, skipping iteration %d", self._iter)
            return
        compute = rt.as_stream(torch.cuda.current_stream().cuda_stream)
        self.statistic.snapshot(compute)
        self._inflight = self._pool.submit(plan_placement, self.statistic,
                                           self.config)
        self._inflight.add_done_callback(self._on_planned)
        self.statistic.reset(compute)

    def _on_planned(self, fut: Future) -> None:
        if fut.exception() is not None:
            logger.error("placement planning failed: %s", fut.exception())
            return
        with self._lock:
            self._pending_plan = fut.result()
