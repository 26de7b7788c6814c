"""Device slab cache with pinned-host spill for cupy workloads."""
from slabswap.engine import SlabEngine
from slabswap.streams import StreamSet

__all__ = ["SlabEngine", "StreamSet"]
