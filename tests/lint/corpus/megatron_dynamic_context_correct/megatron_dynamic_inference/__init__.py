from .config import DynamicContextConfig, RequestStatus
from .dynamic_context import DynamicInferenceContext
from .engine import DynamicInferenceEngine

__all__ = ["DynamicContextConfig", "RequestStatus", "DynamicInferenceContext", "DynamicInferenceEngine"]
