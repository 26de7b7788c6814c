import os
from dataclasses import dataclass
from typing import Optional, Tuple

import torch


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    local_disk: Optional[str] = None
    max_local_disk_size: float = 5.0
    disk_io_workers: int = 4
    use_gpu_buffer: bool = False
    save_unfull_chunk: bool = True

    @staticmethod
    def from_env() -> "LMCacheEngineConfig":
        return LMCacheEngineConfig(
            chunk_size=int(os.getenv("LMCACHE_CHUNK_SIZE", "256")),
            local_disk=os.getenv("LMCACHE_LOCAL_DISK"),
            max_local_disk_size=float(os.getenv("LMCACHE_MAX_LOCAL_DISK_SIZE", "5.0")),
            use_gpu_buffer=os.getenv("LMCACHE_USE_GPU_BUFFER", "0") == "1",
        )


@dataclass
class LMCacheEngineMetadata:
    model_name: str
    world_size: int
    worker_id: int
    kv_dtype: torch.dtype
    kv_shape: Tuple[int, int, int, int]  # (num_layers, 2, chunk_size, hidden_dim)


@dataclass(frozen=True)
class CacheEngineKey:
    fmt: str
    model_name: str
    world_size: int
    worker_id: int
    chunk_hash: str

    def to_string(self) -> str:
        return f"{self.fmt}@{self.model_name}@{self.world_size}@{self.worker_id}@{self.chunk_hash}"
