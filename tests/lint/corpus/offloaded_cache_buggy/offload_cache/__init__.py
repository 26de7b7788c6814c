# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
from .cache import OffloadedStaticKVCache
from .decoding import LayerwiseDecoder

__all__ = ["OffloadedStaticKVCache", "LayerwiseDecoder"]
