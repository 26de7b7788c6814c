# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""CPU offloading of distributed-optimizer state between steps."""
