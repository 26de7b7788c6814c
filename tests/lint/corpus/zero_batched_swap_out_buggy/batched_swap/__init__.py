from .swap_out import BatchedParamSwapOut

__all__ = ["BatchedParamSwapOut"]
