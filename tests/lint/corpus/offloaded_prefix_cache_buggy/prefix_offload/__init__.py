# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
# Licensed under the Apache License, Version 2.0
from .cache_utils import OffloadedPrefixCache
from .configuration import OffloadedCacheConfig
from .hooks import attach_layer_release_hooks

__all__ = ["OffloadedPrefixCache", "OffloadedCacheConfig", "attach_layer_release_hooks"]
