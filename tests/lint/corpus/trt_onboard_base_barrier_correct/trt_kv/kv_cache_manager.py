from collections import OrderedDict
from typing import Dict, List, Tuple

import torch

from .transfer_manager import KVCacheTransferManager


class KVCacheManager:
    """``prepare_resources`` runs on the executor thread before each forward; the previous
    forward (which may read any primary block, including ones freed since) can still be
    running on the engine stream."""

    def __init__(self, num_layers: int, num_kv_heads: int, head_dim: int, tokens_per_block: int,
                 max_primary_blocks: int, max_secondary_blocks: int, dtype=torch.float16):
        block_shape = (num_layers, 2, tokens_per_block, num_kv_heads, head_dim)
        self.tokens_per_block = tokens_per_block
        self.primary_pool = torch.empty((max_primary_blocks, ) + block_shape, dtype=dtype, device="cuda")
        self.secondary_pool = torch.empty((max_secondary_blocks, ) + block_shape, dtype=dtype,
                                          pin_memory=True)
        self.block_bytes = self.primary_pool[0].numel() * self.primary_pool.element_size()
        self.transfer_manager = KVCacheTransferManager(torch.cuda.current_stream().cuda_stream)
        self.free_primary: List[int] = list(range(max_primary_blocks))
        self.free_secondary: List[int] = list(range(max_secondary_blocks))
        self.lru: "OrderedDict[int, int]" = OrderedDict()  # primary block -> owning request
        self.tables: Dict[int, List[Tuple[str, int]]] = {}

    def _primary(self, block: int) -> int:
        return self.primary_pool.data_ptr() + block * self.block_bytes

    def _secondary(self, block: int) -> int:
        return self.secondary_pool.data_ptr() + block * self.block_bytes

    def _take_primary(self, owner: int, scheduled: set, offloads: list) -> int:
        if not self.free_primary:
            victim, victim_owner = next((b, o) for b, o in self.lru.items() if o not in scheduled)
            del self.lru[victim]
            host_block = self.free_secondary.pop()
            offloads.append((self._secondary(host_block), self._primary(victim), self.block_bytes))
            table = self.tables[victim_owner]
            table[table.index(("primary", victim))] = ("secondary", host_block)
            self.free_primary.append(victim)
        block = self.free_primary.pop()
        self.lru[block] = owner
        return block

    def prepare_resources(self, scheduled_requests) -> None:
        scheduled = {r.request_id for r in scheduled_requests}
        offloads, onboards, released = [], [], []
        for req in scheduled_requests:
            table = self.tables.setdefault(req.request_id, [])
            for i, (where, block) in enumerate(table):
                if where == "secondary":
                    primary = self._take_primary(req.request_id, scheduled, offloads)
                    onboards.append((self._primary(primary), self._secondary(block), self.block_bytes))
                    released.append(block)
                    table[i] = ("primary", primary)
            while len(table) * self.tokens_per_block < req.num_tokens + 1:
                table.append(("primary", self._take_primary(req.request_id, scheduled, offloads)))
        if offloads or onboards:
            self.transfer_manager.wait_for_engine()
        if offloads:
            self.transfer_manager.offload(offloads)
        if onboards:
            self.transfer_manager.onboard(onboards)
        if offloads or onboards:
            # the forward must not overwrite a victim before it is out, nor read an onboarded
            # block before it is in
            self.transfer_manager.sync_transfers()
        self.free_secondary.extend(released)

    def free_resources(self, request) -> None:
        for where, block in self.tables.pop(request.request_id, []):
            if where == "primary":
                self.lru.pop(block, None)
                self.free_primary.append(block)
            else:
                self.free_secondary.append(block)
