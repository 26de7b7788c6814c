# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
"""Fine-grained activation offloading for pipeline-parallel training."""
