# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
import os

# Third Party
import torch


@dataclass
class RetrieverConfig:
    device: torch.device
    chunk_size: int = 256
    # Requests with at most this many chunks are loaded on the calling thread.
    inline_chunk_limit: int = 2
    max_workers: int = 1

    @classmethod
    def from_env(cls, device: torch.device) -> "RetrieverConfig":
        return cls(
            device=device,
            chunk_size=int(os.getenv("LMCACHE_CHUNK_SIZE", "256")),
            inline_chunk_limit=int(os.getenv("LMCACHE_INLINE_CHUNKS", "2")),
            max_workers=int(os.getenv("LMCACHE_RETRIEVE_WORKERS", "1")),
        )
