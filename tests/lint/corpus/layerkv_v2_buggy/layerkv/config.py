# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass

# Third Party
import torch


@dataclass
class LayerwiseConfig:
    num_layers: int
    hidden_dim: int
    chunk_size: int = 256
    dtype: torch.dtype = torch.float16
    device: str = "cuda:0"
    max_local_cpu_size: float = 4.0  # GiB
    save_unfull_chunk: bool = True
    num_put_workers: int = 2

    @property
    def max_pinned_bytes(self) -> int:
        return int(self.max_local_cpu_size * (1 << 30))
