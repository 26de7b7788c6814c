from .flex_model import OptLM
from .policy import OptConfig, Policy, Task

__all__ = ["OptLM", "OptConfig", "Policy", "Task"]
