# SPDX-License-Identifier: Apache-2.0
import os
from dataclasses import dataclass

import torch

DEFAULT_CHUNK_SIZE = 256
KV_FILE_SUFFIX = ".kvcache"
PARTIAL_SUFFIX = ".partial"
_TRUE = ("1", "true", "yes", "on")


@dataclass
class SpillConfig:
    local_disk_path: str = "/tmp/kvspill"
    chunk_size: int = DEFAULT_CHUNK_SIZE
    num_layers: int = 32
    hidden_dim: int = 1024
    kv_dtype: torch.dtype = torch.float16
    blocking_put: bool = False
    put_workers: int = 2

    def chunk_shape(self, num_tokens: int) -> torch.Size:
        return torch.Size([self.num_layers, 2, num_tokens, self.hidden_dim])

    @classmethod
    def from_env(cls) -> "SpillConfig":
        cfg = cls()
        cfg.local_disk_path = os.getenv("KVSPILL_LOCAL_DISK", cfg.local_disk_path)
        cfg.chunk_size = int(os.getenv("KVSPILL_CHUNK_SIZE", cfg.chunk_size))
        cfg.blocking_put = os.getenv("KVSPILL_BLOCKING_PUT", "0").lower() in _TRUE
        cfg.put_workers = int(os.getenv("KVSPILL_PUT_WORKERS", cfg.put_workers))
        return cfg
