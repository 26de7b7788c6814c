"""Low-overhead engine metrics: counters live on the GPU, a logger thread reports rates."""

from .collector import MetricsCollector, Snapshot
from .counters import Counter, GpuCounters
from .logger import StatLoggerThread

__all__ = ["Counter", "GpuCounters", "MetricsCollector", "Snapshot", "StatLoggerThread"]
