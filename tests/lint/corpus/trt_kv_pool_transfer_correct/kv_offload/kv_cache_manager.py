import math

import torch

from .block_pool import BlockPool
from .constants import CacheLevel, KvCacheConfig
from .transfer_manager import KVCacheTransferManager


class KVCacheManager:

    def __init__(self, config: KvCacheConfig, num_kv_heads: int, head_dim: int,
                 dtype: torch.dtype = torch.float16):
        block_shape = (2, num_kv_heads, config.tokens_per_block, head_dim)
        self.config = config
        self.head_dim = head_dim
        self.primary = BlockPool(CacheLevel.PRIMARY, config.num_primary_blocks, block_shape, dtype)
        self.secondary = BlockPool(CacheLevel.SECONDARY, config.num_secondary_blocks, block_shape,
                                   dtype)
        self.transfer_manager = KVCacheTransferManager(self.primary, self.secondary)
        self.block_tables: dict[int, list[int]] = {}
        self.offloaded_tables: dict[int, list[int]] = {}
        self._in_flight: list[tuple[torch.cuda.Event, BlockPool, list[int]]] = []

    def _reclaim_finished_transfers(self) -> None:
        still_running = []
        for event, pool, block_ids in self._in_flight:
            if event.query():
                for block_id in block_ids:
                    pool.release(block_id)
            else:
                still_running.append((event, pool, block_ids))
        self._in_flight = still_running

    def attend(self, request_id: int, q: torch.Tensor) -> torch.Tensor:
        """Vanilla paged attention for a single decode token; q is [heads, 1, head_dim]."""
        ids = torch.tensor(self.block_tables[request_id], device=q.device)
        kv = self.primary.pool.index_select(0, ids)
        k = kv[:, 0].permute(1, 0, 2, 3).flatten(1, 2)
        v = kv[:, 1].permute(1, 0, 2, 3).flatten(1, 2)
        scores = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(self.head_dim), dim=-1)
        return scores @ v

    def free_resources(self, request_id: int) -> None:
        for block_id in self.block_tables.pop(request_id, []):
            self.primary.release(block_id)

    def suspend(self, request_id: int) -> None:
        primary_ids = self.block_tables.pop(request_id)
        secondary_ids = [self.secondary.allocate() for _ in primary_ids]
        event = self.transfer_manager.offload(list(zip(primary_ids, secondary_ids)))
        self._in_flight.append((event, self.primary, primary_ids))
        self.offloaded_tables[request_id] = secondary_ids

    def resume(self, request_id: int) -> None:
        secondary_ids = self.offloaded_tables.pop(request_id)
        primary_ids = [self.primary.allocate() for _ in secondary_ids]
        event = self.transfer_manager.onboard(list(zip(secondary_ids, primary_ids)))
        self._in_flight.append((event, self.secondary, secondary_ids))
        self.block_tables[request_id] = primary_ids

    def step(self, queries: dict[int, torch.Tensor], finished: list[int], to_suspend: list[int],
             to_resume: list[int]) -> dict[int, torch.Tensor]:
        self._reclaim_finished_transfers()
        outputs = {rid: self.attend(rid, q) for rid, q in queries.items()}
        for rid in finished:
            self.free_resources(rid)
        for rid in to_suspend:
            self.suspend(rid)
        for rid in to_resume:
            self.resume(rid)
        return outputs
