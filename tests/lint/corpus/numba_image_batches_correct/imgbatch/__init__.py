"""Double-buffered image batch scoring on the GPU with numba.cuda."""

from .config import PipelineConfig
from .pipeline import BatchPipeline

__all__ = ["BatchPipeline", "PipelineConfig"]
