from .dynamic_context import DynamicInferenceContext
from .dynamic_engine import DynamicInferenceEngine
from .request_book import InferenceRequest, RequestBook, RequestStatus

__all__ = ["DynamicInferenceContext", "DynamicInferenceEngine", "InferenceRequest", "RequestBook", "RequestStatus"]
