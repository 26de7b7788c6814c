"""FlexGen-style layer streaming on CuPy: weights live in pinned host memory."""
from .policy import Policy
from .runner import LayerRunner

__all__ = ["Policy", "LayerRunner"]
