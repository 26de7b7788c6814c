import logging

import numpy as np

from . import rt
from .config import MoeLoadBalancerConfig
from .stats import ExpertStatistic

logger = logging.getLogger(__name__)


def plan_placement(stat: ExpertStatistic,
                   config: MoeLoadBalancerConfig) -> np.ndarray:
    """Greedy replication: spare slots go to the hottest experts per layer."""
    rt.event_sync(stat.host_ready)
    load = stat.host_counts.astype(np.float64)
    spare = config.num_slots - config.num_experts
    placement = np.empty((load.shape[0], config.num_slots), dtype=np.int32)
    for row, layer_load in enumerate(load):
        replicas = np.ones(config.num_experts, dtype=np.int64)
        for _ in range(spare):
            replicas[np.argmax(layer_load / replicas)] += 1
        placement[row] = np.repeat(np.arange(config.num_experts), replicas)
    logger.debug("planned placement, max load %.0f", float(load.max()))
    return placement
