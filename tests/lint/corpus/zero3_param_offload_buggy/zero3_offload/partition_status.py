from enum import Enum


class PartitionedParamStatus(Enum):
    # partition lives in accelerator memory
    AVAILABLE = 1
    # partition has been queued for offload to pinned CPU memory
    INFLIGHT = 2
    # partition only exists in pinned CPU memory
    NOT_AVAILABLE = 3


def see_memory_usage_enabled(config) -> bool:
    return bool(getattr(config, "memory_breakdown", False))
