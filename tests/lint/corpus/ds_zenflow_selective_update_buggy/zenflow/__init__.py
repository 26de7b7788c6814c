"""Selective GPU/CPU optimizer updates in the shape of DeepSpeed's ZenFlow: the top-k most
important gradient columns of every matrix are stepped on the device right away; the rest are
offloaded to pinned host memory every step, accumulated there by a CPU job running in a thread
pool, and stepped by a CPU Adam every ``update_interval`` steps."""

from zenflow.config import ZenFlowConfig
from zenflow.optimizer import ZenFlowSelectiveOptimizer

__all__ = ["ZenFlowConfig", "ZenFlowSelectiveOptimizer"]
