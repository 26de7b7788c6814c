from .opt_model import OptLM, Task
from .policy import Policy

__all__ = ["OptLM", "Policy", "Task"]
