from .opt_engine import OptLM
from .policy import Policy, Task

__all__ = ["OptLM", "Policy", "Task"]
