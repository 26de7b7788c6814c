# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Optional

# Third Party
import torch


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    num_layers: int = 32
    hidden_dim_size: int = 1024
    kv_dtype: torch.dtype = torch.bfloat16
    max_local_cpu_size_gb: float = 5.0
    local_disk_path: Optional[str] = None
    save_unfull_chunk: bool = True
    put_workers: int = 2

    @property
    def max_local_cpu_bytes(self) -> int:
        return int(self.max_local_cpu_size_gb * (1 << 30))
