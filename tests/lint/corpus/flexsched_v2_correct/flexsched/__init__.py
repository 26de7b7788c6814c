from .generator import OffloadGenerator
from .policy import ModelShape, Policy

__all__ = ["ModelShape", "OffloadGenerator", "Policy"]
