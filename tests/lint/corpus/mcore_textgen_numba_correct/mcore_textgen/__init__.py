# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .config import InferenceConfig, SamplingParams
from .controller import TextGenerationController

__all__ = ["InferenceConfig", "SamplingParams", "TextGenerationController"]
