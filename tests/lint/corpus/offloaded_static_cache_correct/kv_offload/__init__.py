# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
#
# Licensed under the Apache License, Version 2.0 (the "License");
from .cache_utils import OffloadedStaticCache
from .configuration import OffloadedStaticCacheConfig

__all__ = ["OffloadedStaticCache", "OffloadedStaticCacheConfig"]
