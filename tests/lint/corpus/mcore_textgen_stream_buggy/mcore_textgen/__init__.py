# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .sampling_params import SamplingParams
from .text_generation_controller import TextGenerationController

__all__ = ["SamplingParams", "TextGenerationController"]
