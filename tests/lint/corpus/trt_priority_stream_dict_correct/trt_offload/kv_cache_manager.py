"""Eviction policy: picks victims when admitting context requests (urgent) and cold
blocks between steps (background), and hands them to the offload manager."""

from typing import List, Tuple

import torch

from trt_offload.config import OffloadConfig, OffloadPriority
from trt_offload.offload_manager import OffloadBatch, OffloadManager


class KVCacheManager:
    def __init__(self, num_blocks: int, block_shape, cfg: OffloadConfig):
        self.pool = torch.zeros((num_blocks,) + tuple(block_shape), dtype=torch.float16,
                                device="cuda")
        self.offloader = OffloadManager(self.pool, cfg)
        self.free_host = list(range(cfg.num_host_blocks))
        self.free_gpu: List[int] = []
        # released blocks that keep their cached prefix, least recently used first
        self.lru: List[int] = []
        self._writing_back: List[Tuple[List[int], List[int]]] = []

    def on_blocks_released(self, blocks: List[int]) -> None:
        # the request's last forward may still be queued: its kernels wrote these blocks
        self.lru.extend(blocks)

    def on_blocks_reused(self, blocks: List[int]) -> None:
        self.lru = [b for b in self.lru if b not in blocks]

    def reclaim(self) -> None:
        """Background victims become free once their host copy has landed."""
        still = []
        for gpu, host in self._writing_back:
            if all(self.offloader.is_resident(h) for h in host):
                self.free_gpu.extend(gpu)
            else:
                still.append((gpu, host))
        self._writing_back = still

    def _victims(self, n: int) -> Tuple[List[int], List[int]]:
        gpu, self.lru = self.lru[:n], self.lru[n:]
        host, self.free_host = self.free_host[:len(gpu)], self.free_host[len(gpu):]
        return gpu, host

    def end_of_step(self, needed_blocks: int, cold_blocks: int) -> None:
        batches = []
        if needed_blocks:
            g, h = self._victims(needed_blocks)
            batches.append(OffloadBatch(OffloadPriority.URGENT, g, h))
            self.free_gpu.extend(g)
        if cold_blocks:
            g, h = self._victims(cold_blocks)
            batches.append(OffloadBatch(OffloadPriority.BACKGROUND, g, h))
            self._writing_back.append((g, h))
        self.offloader.offload(batches)
