"""FlexGen-style offloaded OPT inference on CuPy."""
from .opt_lm import OptLM
from .policy import Policy

__all__ = ["OptLM", "Policy"]
