# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass, field
from typing import Any, List, Optional

import torch


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    log_probs: Optional[torch.Tensor] = None


@dataclass(kw_only=True)
class SampleState:
    requests: List[Any] = field(default_factory=list)
    device: Optional[SampleStateTensors] = None
    host: Optional[SampleStateTensors] = None
    # Event from the active accelerator backend (torch.cuda.Event, torch.xpu.Event, ...)
    sampler_event: Optional[Any] = None
