"""FlexGen-style offloaded generation on CuPy arrays."""
from .policy import CompressionConfig, Policy
from .model import OptLM

__all__ = ["CompressionConfig", "Policy", "OptLM"]
