# Copyright 2024 The HuggingFace Team. All rights reserved.
"""Static KV cache whose layers live in pinned host memory."""
