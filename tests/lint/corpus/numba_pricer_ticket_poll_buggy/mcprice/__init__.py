"""Monte Carlo pricing of European options on the GPU (numba), served to request threads.

Each request becomes a ticket: its kernel and the copy of its payoff sums back to pinned host
memory are queued on the engine's stream, and the handler polls the ticket instead of
blocking inside the CUDA driver (so that it can time out and report the kernel time).
"""
from .engine import PricingEngine
from .service import PricingService

__all__ = ["PricingEngine", "PricingService"]
