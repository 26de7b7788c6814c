from .dynamic_context import DynamicInferenceContext
from .engine import DynamicInferenceEngine

__all__ = ["DynamicInferenceContext", "DynamicInferenceEngine"]
