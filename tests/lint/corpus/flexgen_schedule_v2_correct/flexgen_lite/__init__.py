from .engine import OptLM
from .policy import Policy

__all__ = ["OptLM", "Policy"]
