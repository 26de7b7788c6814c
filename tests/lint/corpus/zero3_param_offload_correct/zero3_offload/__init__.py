from .offload_coordinator import PartitionOffloadCoordinator
from .stage3_offload_optimizer import Stage3ParamOffloadOptimizer

__all__ = ["PartitionOffloadCoordinator", "Stage3ParamOffloadOptimizer"]
