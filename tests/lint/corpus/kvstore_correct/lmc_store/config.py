# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import Optional
import os

# Third Party
import torch

DEFAULT_CHUNK_SIZE = 256
DEFAULT_IO_WORKERS = 2


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = DEFAULT_CHUNK_SIZE
    local_disk: Optional[str] = None
    max_local_disk_size: float = 5.0  # GiB
    save_unfull_chunk: bool = True
    num_io_workers: int = DEFAULT_IO_WORKERS
    kv_dtype: torch.dtype = torch.float16

    @classmethod
    def from_env(cls) -> "LMCacheEngineConfig":
        return cls(
            chunk_size=int(os.getenv("LMCACHE_CHUNK_SIZE", DEFAULT_CHUNK_SIZE)),
            local_disk=os.getenv("LMCACHE_LOCAL_DISK"),
            max_local_disk_size=float(os.getenv("LMCACHE_MAX_LOCAL_DISK_SIZE", 5.0)),
            save_unfull_chunk=os.getenv("LMCACHE_SAVE_UNFULL_CHUNK", "1") == "1",
        )
