from kv_swap.swapper import KVSwapper, SwapConfig

__all__ = ["KVSwapper", "SwapConfig"]
