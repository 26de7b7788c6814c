"""GPU binned-power monitor for streamed sensor frames (numba.cuda)."""

from .device import FrameProcessor, FrameResult
from .postprocess import PeakTracker

__all__ = ["FrameProcessor", "FrameResult", "PeakTracker"]
