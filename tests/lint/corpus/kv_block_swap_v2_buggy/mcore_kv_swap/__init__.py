from .dynamic_context import DynamicInferenceContext
from .swap_worker import SwapKind, SwapWorker

__all__ = ["DynamicInferenceContext", "SwapKind", "SwapWorker"]
