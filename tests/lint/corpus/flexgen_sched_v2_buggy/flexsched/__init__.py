from .policy import Policy
from .opt_model import OptLM

__all__ = ["Policy", "OptLM"]
