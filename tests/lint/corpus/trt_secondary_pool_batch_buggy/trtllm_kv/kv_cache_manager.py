# SPDX-License-Identifier: Apache-2.0
from collections import OrderedDict
from dataclasses import dataclass

import torch

from .cuda_transfer import KVCacheTransferManager
from .resource_manager import BaseResourceManager


@dataclass
class KvCacheConfig:
    num_layers: int = 32
    num_kv_heads: int = 8
    head_dim: int = 128
    tokens_per_block: int = 32
    max_primary_blocks: int = 2048
    max_secondary_blocks: int = 8192
    prefer_early_copy_source: bool = True


class KVCacheManager(BaseResourceManager):

    def __init__(self, config: KvCacheConfig, dtype=torch.float16):
        self.config = config
        block_shape = (config.num_layers, 2, config.tokens_per_block, config.num_kv_heads, config.head_dim)
        self.primary_pool = torch.empty((config.max_primary_blocks, ) + block_shape, dtype=dtype, device="cuda")
        self.secondary_pool = torch.empty((config.max_secondary_blocks, ) + block_shape, dtype=dtype,
                                          pin_memory=True)
        self.block_bytes = self.primary_pool[0].numel() * self.primary_pool.element_size()
        self.transfer = KVCacheTransferManager(config, self.block_bytes)
        self.free_primary = list(range(config.max_primary_blocks))
        self.free_secondary = list(range(config.max_secondary_blocks))
        self.lru = OrderedDict()  # primary block -> request id
        self.blocks = {}  # request id -> list of ("p" | "s", block id)

    def get_max_resource_count(self) -> int:
        return self.config.max_primary_blocks

    def get_needed_resource_to_completion(self, request) -> int:
        total = -(-(request.prompt_len + request.max_new_tokens) // self.config.tokens_per_block)
        return total - len(self.blocks.get(request.py_request_id, []))

    def _primary_ptr(self, block):
        return self.primary_pool.data_ptr() + block * self.block_bytes

    def _secondary_ptr(self, block):
        return self.secondary_pool.data_ptr() + block * self.block_bytes

    def _take_primary(self, owner, evicted, scheduled_ids):
        if not self.free_primary:
            # least recently used block of a request that is not in this batch
            victim = next(b for b, o in self.lru.items() if o not in scheduled_ids)
            victim_owner = self.lru.pop(victim)
            host_block = self.free_secondary.pop()
            evicted.append((victim, host_block))
            table = self.blocks[victim_owner]
            table[table.index(("p", victim))] = ("s", host_block)
            self.free_primary.append(victim)
        block = self.free_primary.pop()
        self.lru[block] = owner
        return block

    def prepare_resources(self, scheduled_batch):
        evicted, onboard = [], []
        scheduled_ids = {req.py_request_id for req in scheduled_batch.all_requests()}
        for req in scheduled_batch.all_requests():
            table = self.blocks.setdefault(req.py_request_id, [])
            for i, (kind, block) in enumerate(table):
                if kind == "s":
                    primary = self._take_primary(req.py_request_id, evicted, scheduled_ids)
                    onboard.append((block, primary))
                    table[i] = ("p", primary)
            while len(table) * self.config.tokens_per_block < req.num_tokens + 1:
                table.append(("p", self._take_primary(req.py_request_id, evicted, scheduled_ids)))
            for kind, block in table:
                self.lru.move_to_end(block)
        if evicted:
            self.transfer.offload([self._primary_ptr(p) for p, _ in evicted],
                                  [self._secondary_ptr(s) for _, s in evicted])
        if onboard:
            self.transfer.onboard([self._secondary_ptr(s) for s, _ in onboard],
                                  [self._primary_ptr(p) for _, p in onboard])
            self.free_secondary.extend(s for s, _ in onboard)

    def free_resources(self, request):
        for kind, block in self.blocks.pop(request.py_request_id, []):
            if kind == "p":
                self.lru.pop(block, None)
                self.free_primary.append(block)
            else:
                self.free_secondary.append(block)
