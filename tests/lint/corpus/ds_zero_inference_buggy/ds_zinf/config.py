# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from dataclasses import dataclass
from typing import Optional

import torch

NUM_WEIGHT_SLOTS = 2
SLOT_ALIGNMENT = 256


@dataclass
class ZeroInferenceConfig:
    hidden_size: int = 4096
    intermediate_size: int = 11008
    num_layers: int = 32
    dtype: torch.dtype = torch.float16
    device: Optional[str] = None
    rms_norm_eps: float = 1e-6

    @property
    def layer_numel(self) -> int:
        h, f = self.hidden_size, self.intermediate_size
        numel = 4 * h * h + 3 * h * f + 2 * h
        return (numel + SLOT_ALIGNMENT - 1) // SLOT_ALIGNMENT * SLOT_ALIGNMENT
