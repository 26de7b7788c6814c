from .layer import SelfAttentionCpuCache
from .policy import Policy

__all__ = ["Policy", "SelfAttentionCpuCache"]
