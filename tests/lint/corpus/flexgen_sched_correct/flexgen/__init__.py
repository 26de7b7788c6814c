from .flex_model import FlexLM
from .policy import ModelConfig, Policy

__all__ = ["FlexLM", "ModelConfig", "Policy"]
