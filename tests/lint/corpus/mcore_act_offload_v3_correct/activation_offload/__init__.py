from .offload_config import ActivationOffloadConfig
from .offload_context import get_offload_context, group_commit

__all__ = ["ActivationOffloadConfig", "get_offload_context", "group_commit"]
