"""Hybrid device optimizer: part of the parameters is stepped by a CPU optimizer on pinned fp32
copies, the rest by a GPU optimizer. Gradients of the offloaded part travel device->host on a
D2H stream; updated parameters travel back on an H2D stream."""

from .hybrid_optimizer import HybridDeviceOptimizer

__all__ = ["HybridDeviceOptimizer"]
