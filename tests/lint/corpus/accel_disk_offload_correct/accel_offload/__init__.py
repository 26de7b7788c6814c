# Copyright 2024 The HuggingFace Team. All rights reserved.
"""Disk offload hooks and host-side score collection for generation."""
