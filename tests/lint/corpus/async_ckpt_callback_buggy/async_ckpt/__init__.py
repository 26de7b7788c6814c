# coding=utf-8
# Copyright 2025 The HuggingFace Team. All rights reserved.
# Licensed under the Apache License, Version 2.0
from .callback import AsyncCheckpointCallback
from .config import AsyncCheckpointConfig

__all__ = ["AsyncCheckpointCallback", "AsyncCheckpointConfig"]
