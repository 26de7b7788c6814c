# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Any, Dict, Optional

# Third Party
import torch


@dataclass
class ConnectorConfig:
    num_layers: int
    hidden_dim_size: int
    chunk_size: int = 256
    kv_dtype: torch.dtype = torch.bfloat16
    # Paged KV caches (vLLM) are gathered through a GPU staging buffer;
    # contiguous per-request caches are copied out slice by slice.
    paged_layout: bool = True
    max_staging_tokens: int = 8192
    local_disk_path: str = "/tmp/kvoffload"
    max_disk_workers: int = 4
    device: Optional[torch.device] = None

    @classmethod
    def from_dict(cls, cfg: Dict[str, Any]) -> "ConnectorConfig":
        known = {k: v for k, v in cfg.items() if k in cls.__dataclass_fields__}
        return cls(**known)
