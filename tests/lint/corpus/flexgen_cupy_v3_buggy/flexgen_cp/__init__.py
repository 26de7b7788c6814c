"""FlexGen-style layer-by-layer offloaded generation on a CuPy backend."""
from .engine import OffloadedGenerationEngine
from .policy import Policy

__all__ = ["OffloadedGenerationEngine", "Policy"]
