from .params import PipelineParams
from .pipeline import BeamPipeline

__all__ = ["BeamPipeline", "PipelineParams"]
