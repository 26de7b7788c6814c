# Copyright 2023 The HuggingFace Inc. team.
#
# Licensed under the Apache License, Version 2.0 (the "License");

from .generation_utils import GenerationConfig, sample
from .streamers import AsyncTextIteratorStreamer, BaseStreamer
