# SPDX-License-Identifier: Apache-2.0
from dataclasses import dataclass
from typing import Optional, Tuple

import torch

DEFAULT_CHUNK_SIZE = 256
LOCAL_DISK_PREFIX = "file://"
DISK_WORKER_PREFIX = "lmcache-disk"


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = DEFAULT_CHUNK_SIZE
    local_cpu: bool = True
    local_disk: Optional[str] = None
    save_unfull_chunk: bool = False
    num_disk_workers: int = 2

    @property
    def disk_path(self) -> Optional[str]:
        if self.local_disk is None:
            return None
        if self.local_disk.startswith(LOCAL_DISK_PREFIX):
            return self.local_disk[len(LOCAL_DISK_PREFIX):]
        return self.local_disk


@dataclass
class LMCacheEngineMetadata:
    model_name: str
    worker_id: int
    world_size: int
    kv_dtype: torch.dtype
    # (num_layers, 2, chunk_size, num_kv_heads, head_size)
    kv_shape: Tuple[int, int, int, int, int]

    @property
    def num_layers(self) -> int:
        return self.kv_shape[0]
