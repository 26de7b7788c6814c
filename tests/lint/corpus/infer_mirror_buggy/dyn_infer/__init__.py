# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .context import DynamicInferenceContext
from .engine import DynamicInferenceEngine

__all__ = ["DynamicInferenceContext", "DynamicInferenceEngine"]
