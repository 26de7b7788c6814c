# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .dynamic_engine import DynamicInferenceEngine, InferenceRequest
from .inference_context import DynamicInferenceContext

__all__ = ["DynamicInferenceContext", "DynamicInferenceEngine", "InferenceRequest"]
