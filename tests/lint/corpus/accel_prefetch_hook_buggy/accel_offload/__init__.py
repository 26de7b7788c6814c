# Copyright 2025 The HuggingFace Team. All rights reserved.
"""CPU-offloaded module weights streamed onto the execution device ahead of use."""
from .hooks import ModelHook, PrefetchOffloadHook, attach_prefetch_offload_hooks

__all__ = ["ModelHook", "PrefetchOffloadHook", "attach_prefetch_offload_hooks"]
