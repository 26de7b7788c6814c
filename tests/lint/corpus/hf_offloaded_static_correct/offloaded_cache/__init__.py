# Copyright 2025 The HuggingFace Team. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
from .cache import OffloadedStaticCache
from .configuration import StaticCacheConfig

__all__ = ["OffloadedStaticCache", "StaticCacheConfig"]
