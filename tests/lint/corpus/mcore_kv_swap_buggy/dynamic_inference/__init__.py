from .dynamic_context import DynamicInferenceContext
from .inference_config import DynamicInferenceConfig

__all__ = ["DynamicInferenceConfig", "DynamicInferenceContext"]
