"""Double-buffered expert weight staging for a numba.cuda MoE layer."""
from .layer import MoELayer
from .stager import ExpertStager

__all__ = ["MoELayer", "ExpertStager"]
