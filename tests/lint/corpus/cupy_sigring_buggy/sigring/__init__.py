"""Streaming spectral front end: GPU FFT on a CuPy stream, peaks pulled back to pinned host slots."""

from .config import RingConfig, Window
from .consumer import Detection, PeakConsumer
from .pipeline import SpectralFrontEnd, SpectrumBatch
from .ring import PinnedRing

__all__ = [
    "Detection",
    "PeakConsumer",
    "PinnedRing",
    "RingConfig",
    "SpectralFrontEnd",
    "SpectrumBatch",
    "Window",
    "build",
]


def build(cfg: RingConfig, sink):
    """Wire up a front end and its consumer thread sharing a bounded queue."""
    import queue

    q: "queue.Queue[SpectrumBatch | None]" = queue.Queue(maxsize=cfg.queue_depth)
    ring = PinnedRing(cfg)
    front = SpectralFrontEnd(cfg, q)
    consumer = PeakConsumer(cfg, q, ring, sink)
    consumer.start()
    return front, consumer
