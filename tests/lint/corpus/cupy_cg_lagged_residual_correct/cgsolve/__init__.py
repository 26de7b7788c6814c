from .cg import PipelinedCG

__all__ = ["PipelinedCG"]
