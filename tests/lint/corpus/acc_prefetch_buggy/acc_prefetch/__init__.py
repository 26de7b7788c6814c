from .dispatch import dispatch_with_prefetch
from .hooks import PrefetchCpuOffloadHook
from .slots import WeightSlotPool

__all__ = ["dispatch_with_prefetch", "PrefetchCpuOffloadHook", "WeightSlotPool"]
