"""Trimmed PyExecutor path: overlap loop, torch sampler, KV cache host offload."""
from .py_executor import PyExecutor
from .resource_manager import KVCacheManager
from .sampler import TorchSampler

__all__ = ["KVCacheManager", "PyExecutor", "TorchSampler"]
