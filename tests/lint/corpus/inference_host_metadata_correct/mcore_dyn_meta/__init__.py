from .config import InferenceContextConfig
from .dynamic_context import DynamicInferenceContext

__all__ = ["InferenceContextConfig", "DynamicInferenceContext"]
