"""Chunked KV store/retrieve in the shape of LMCache's v0 LMCacheEngine."""

import hashlib
import logging
from typing import List, Optional

import torch

from lmcache_lite.config import LMCacheEngineConfig
from lmcache_lite.storage.local_disk import LMCLocalDiskBackend

logger = logging.getLogger(__name__)


class LMCacheEngine:
    def __init__(self, config: LMCacheEngineConfig):
        self.config = config
        self.chunk_size = config.chunk_size
        self.backend = LMCLocalDiskBackend(config)

    def _prefix_hashes(self, tokens: torch.Tensor) -> List[str]:
        hashes, prev = [], b""
        for start in range(0, len(tokens), self.chunk_size):
            chunk = tokens[start:start + self.chunk_size].cpu().numpy().tobytes()
            prev = hashlib.sha256(prev + chunk).digest()
            hashes.append(prev.hex())
        return hashes

    @torch.inference_mode()
    def store(self, tokens: torch.Tensor, kv_tensors: List[torch.Tensor]) -> int:
        """``kv_tensors``: one [2, num_tokens, hidden] GPU tensor per layer."""
        stored = 0
        for idx, key in enumerate(self._prefix_hashes(tokens)):
            if self.backend.contains(key):
                continue
            start = idx * self.chunk_size
            end = min(start + self.chunk_size, len(tokens))
            kv_chunk = torch.stack([kv[:, start:end] for kv in kv_tensors])
            self.backend.put(key, kv_chunk)
            stored += end - start
        return stored

    @torch.inference_mode()
    def retrieve(self, tokens: torch.Tensor, device: str = "cuda") -> Optional[torch.Tensor]:
        chunks = []
        for key in self._prefix_hashes(tokens):
            chunk = self.backend.get(key)
            if chunk is None:
                break
            chunks.append(chunk.to(device))
        if not chunks:
            return None
        return torch.cat(chunks, dim=2)
