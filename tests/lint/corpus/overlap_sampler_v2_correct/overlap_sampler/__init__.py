# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from .executor_loop import OverlapExecutorLoop
from .sampler import GreedyTorchSampler
from .state import SampleState, SampleStateTensors

__all__ = ["GreedyTorchSampler", "OverlapExecutorLoop", "SampleState", "SampleStateTensors"]
