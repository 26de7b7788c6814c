from kvspill.offloader import ChunkOffloader
from kvspill.sink import DiskSink

__all__ = ["ChunkOffloader", "DiskSink"]
