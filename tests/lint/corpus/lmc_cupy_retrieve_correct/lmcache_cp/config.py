# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass

import torch


@dataclass
class LayerwiseRetrieveConfig:
    model_name: str
    num_layers: int
    hidden_dim: int
    chunk_size: int = 256
    max_tokens: int = 8192
    num_buffers: int = 2
    kv_dtype: torch.dtype = torch.float16
