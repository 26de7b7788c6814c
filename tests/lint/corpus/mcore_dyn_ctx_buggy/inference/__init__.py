# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.

from .config import DynamicInferenceConfig
from .dynamic_context import DynamicInferenceContext
