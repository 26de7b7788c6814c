from .executor import BatchSwapExecutor
from .plan import SwapPlan
from .scheduler import SwapScheduler

__all__ = ["BatchSwapExecutor", "SwapPlan", "SwapScheduler"]
