"""Write CuPy arrays as a chunked, compressed directory store (zarr-v2-like layout).

Chunks are byte-shuffled on the GPU, copied into a small ring of pinned staging buffers on a
dedicated device-to-host stream, and compressed + written by a background thread, so the GPU
never waits for zlib.
"""
from .store import DirectoryStore
from .writer import ChunkedWriter

__all__ = ["ChunkedWriter", "DirectoryStore"]
