# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from .text_generation_controller import TextGenerationController

__all__ = ["TextGenerationController"]
