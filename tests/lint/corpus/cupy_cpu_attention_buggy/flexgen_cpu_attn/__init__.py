from .device import CupyEnv
from .self_attention import SelfAttention

__all__ = ["CupyEnv", "SelfAttention"]
