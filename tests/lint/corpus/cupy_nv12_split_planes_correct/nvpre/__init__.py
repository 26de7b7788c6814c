"""RGB -> NV12 conversion on the GPU feeding a raw-video encoder process.

The luma plane and the subsampled chroma plane are written by two kernels on two streams so
that they overlap; the finished NV12 frame is downloaded into pinned memory on a third stream
and piped to the encoder (ffmpeg reading rawvideo on stdin) by a feeder thread.
"""
from .converter import Nv12Converter

__all__ = ["Nv12Converter"]
