from .scheduler import SwapConfig, SwapScheduler

__all__ = ["SwapConfig", "SwapScheduler"]
