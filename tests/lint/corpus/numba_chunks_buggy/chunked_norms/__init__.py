"""Row-norm computation over arrays larger than device memory, streamed in chunks."""

from .pipeline import ChunkedNormPipeline
from .job import NormJob

__all__ = ["ChunkedNormPipeline", "NormJob"]
