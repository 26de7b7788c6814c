# coding=utf-8
# Copyright 2024 The HuggingFace Team. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
from .cache_config import OffloadedCacheConfig
from .hooks import attach_layer_prefetch_hooks
from .offloaded_static_cache import OffloadedStaticCache

__all__ = ["OffloadedCacheConfig", "OffloadedStaticCache", "attach_layer_prefetch_hooks"]
