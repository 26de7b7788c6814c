from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass(frozen=True)
class CacheEngineKey:
    fmt: str
    model_name: str
    world_size: int
    worker_id: int
    chunk_hash: str

    def to_string(self) -> str:
        return (f"{self.fmt}@{self.model_name}@{self.world_size}"
                f"@{self.worker_id}@{self.chunk_hash}")


@dataclass
class DiskCacheMetadata:
    path: str
    size: int
    shape: torch.Size
    dtype: torch.dtype
    crc32: Optional[int] = None


def key_to_path(root: str, key: CacheEngineKey) -> str:
    return os.path.join(root, key.to_string().replace("/", "-") + ".pt")
