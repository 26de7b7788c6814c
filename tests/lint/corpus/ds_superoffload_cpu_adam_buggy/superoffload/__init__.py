"""CPU-offloaded Adam that overlaps with backward, in the shape of DeepSpeed's SuperOffload:
each sub-group's reduced gradient is copied to pinned host memory as soon as backward produced
it, a CPU Adam worker steps the fp32 master copy, and the updated values are uploaded back into
the device parameters while backward continues on earlier layers."""

from superoffload.config import SuperOffloadConfig
from superoffload.engine import SuperOffloadEngine

__all__ = ["SuperOffloadConfig", "SuperOffloadEngine"]
