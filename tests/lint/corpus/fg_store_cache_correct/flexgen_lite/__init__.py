from flexgen_lite.engine import OptLM
from flexgen_lite.policy import Policy

__all__ = ["OptLM", "Policy"]
