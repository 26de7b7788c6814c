# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Any, Dict

# Third Party
import torch


@dataclass
class LayerwiseConnectorConfig:
    num_layers: int
    hidden_dim_size: int
    max_num_tokens: int
    chunk_size: int = 256
    dtype: torch.dtype = torch.bfloat16
    device: str = "cuda:0"
    # Route KV through a device-side staging buffer before the D2H copy.
    use_gpu: bool = False

    @classmethod
    def from_dict(cls, raw: Dict[str, Any]) -> "LayerwiseConnectorConfig":
        dtype = raw.get("dtype", "bfloat16")
        return cls(
            num_layers=int(raw["num_layers"]),
            hidden_dim_size=int(raw["hidden_dim_size"]),
            max_num_tokens=int(raw["max_num_tokens"]),
            chunk_size=int(raw.get("chunk_size", 256)),
            dtype=getattr(torch, dtype) if isinstance(dtype, str) else dtype,
            device=raw.get("device", "cuda:0"),
            use_gpu=bool(raw.get("use_gpu", False)),
        )
