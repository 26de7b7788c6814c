"""Low-latency serving of a fixed-shape model through a captured CUDA graph.

The graph reads its input from one static device buffer. A loader thread stages each request
in pinned host memory (cudaMallocHost) and copies it into that buffer with the CUDA runtime on
its own stream, so that the host-to-device transfer of request i+1 overlaps the replay of i.
"""
from .server import GraphServer

__all__ = ["GraphServer"]
