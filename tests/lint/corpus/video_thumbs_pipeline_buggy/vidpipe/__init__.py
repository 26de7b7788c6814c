"""GPU video analytics: decode -> letterbox/normalise -> detector, with JPEG thumbnails on the side."""

from .pipeline import PipelineConfig, VideoPipeline

__all__ = ["PipelineConfig", "VideoPipeline"]
