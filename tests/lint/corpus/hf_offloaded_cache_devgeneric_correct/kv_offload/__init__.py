# Copyright 2024 The HuggingFace Team. All rights reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");

from .cache_utils import Cache, DynamicCache, OffloadedCache
from .generation import prepare_cache_for_generation, reorder_beams
