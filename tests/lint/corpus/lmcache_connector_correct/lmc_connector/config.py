"""Configuration and per-request metadata for the LMCache vLLM v1 connector."""

from __future__ import annotations

import enum
import hashlib
import os
from dataclasses import dataclass
from typing import Optional

import torch


class StoreLocation(enum.Enum):
    LOCAL_CPU = "local_cpu"
    LOCAL_DISK = "local_disk"


@dataclass
class LMCacheEngineConfig:
    chunk_size: int = 256
    max_staging_tokens: int = 8192
    location: StoreLocation = StoreLocation.LOCAL_DISK
    local_disk_path: str = "/tmp/lmcache"

    @classmethod
    def from_env(cls) -> "LMCacheEngineConfig":
        return cls(
            chunk_size=int(os.getenv("LMCACHE_CHUNK_SIZE", "256")),
            max_staging_tokens=int(os.getenv("LMCACHE_MAX_STAGING_TOKENS", "8192")),
            location=StoreLocation(os.getenv("LMCACHE_LOCATION", "local_disk")),
            local_disk_path=os.getenv("LMCACHE_LOCAL_DISK", "/tmp/lmcache"),
        )


@dataclass
class SaveSpec:
    # Tokens that were already stored by a previous step.
    skip_leading_tokens: int
    can_save: bool


@dataclass
class ReqMeta:
    req_id: str
    token_ids: tuple[int, ...]
    slot_mapping: torch.Tensor  # int64, on the GPU
    save_spec: Optional[SaveSpec] = None

    @property
    def num_tokens_to_save(self) -> int:
        if self.save_spec is None:
            return 0
        return self.slot_mapping.numel() - self.save_spec.skip_leading_tokens

    def cache_key(self, layer_idx: int) -> str:
        prefix = hashlib.sha256(repr(self.token_ids).encode()).hexdigest()[:32]
        return f"{prefix}@{self.save_spec.skip_leading_tokens}@L{layer_idx}"
