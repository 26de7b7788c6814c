"""The KV cache manager the executor calls before every forward."""

from collections import OrderedDict
from dataclasses import dataclass
from typing import Dict, List, Tuple

import torch

from trt_kv.transfer_manager import BlockCopy, KVCacheTransferManager


@dataclass
class KvCacheConfig:
    num_layers: int = 32
    num_kv_heads: int = 8
    head_dim: int = 128
    tokens_per_block: int = 32
    max_primary_blocks: int = 4096
    max_secondary_blocks: int = 16384


class KVCacheManager:

    def __init__(self, config: KvCacheConfig, device_id: int = 0, dtype=torch.bfloat16):
        self.config = config
        block_shape = (config.num_layers, 2, config.tokens_per_block, config.num_kv_heads, config.head_dim)
        self.primary = torch.empty((config.max_primary_blocks, ) + block_shape, dtype=dtype,
                                   device=f"cuda:{device_id}")
        self.secondary = torch.empty((config.max_secondary_blocks, ) + block_shape, dtype=dtype,
                                     pin_memory=True)
        self.block_bytes = self.primary[0].numel() * self.primary.element_size()
        self.transfer = KVCacheTransferManager(device_id)
        self.free_primary = list(range(config.max_primary_blocks))
        self.free_secondary = list(range(config.max_secondary_blocks))
        self.lru: "OrderedDict[int, int]" = OrderedDict()  # primary block -> request id
        self.tables: Dict[int, List[Tuple[str, int]]] = {}  # request id -> [(pool, block)]

    def _p(self, block: int) -> int:
        return self.primary.data_ptr() + block * self.block_bytes

    def _s(self, block: int) -> int:
        return self.secondary.data_ptr() + block * self.block_bytes

    def _take_primary(self, owner: int, scheduled: set, offloads: List[BlockCopy]) -> int:
        if not self.free_primary:
            victim = next(b for b, o in self.lru.items() if o not in scheduled)
            victim_owner = self.lru.pop(victim)
            host = self.free_secondary.pop()
            offloads.append(BlockCopy(self._s(host), self._p(victim), self.block_bytes))
            table = self.tables[victim_owner]
            table[table.index(("primary", victim))] = ("secondary", host)
            self.free_primary.append(victim)
        block = self.free_primary.pop()
        self.lru[block] = owner
        return block

    def prepare_resources(self, scheduled_batch) -> None:
        offloads: List[BlockCopy] = []
        onboards: List[BlockCopy] = []
        freed_secondary: List[int] = []
        requests = scheduled_batch.all_requests()
        scheduled = {r.py_request_id for r in requests}
        for req in requests:
            table = self.tables.setdefault(req.py_request_id, [])
            for i, (pool, block) in enumerate(table):
                if pool == "secondary":
                    primary = self._take_primary(req.py_request_id, scheduled, offloads)
                    onboards.append(BlockCopy(self._p(primary), self._s(block), self.block_bytes))
                    freed_secondary.append(block)
                    table[i] = ("primary", primary)
            while len(table) * self.config.tokens_per_block < req.max_num_tokens:
                table.append(("primary", self._take_primary(req.py_request_id, scheduled, offloads)))
            for pool, block in table:
                self.lru.move_to_end(block)
        self.transfer.offload(offloads)
        self.transfer.onboard(onboards)
        self.free_secondary.extend(freed_secondary)

    def free_resources(self, request) -> None:
        for pool, block in self.tables.pop(request.py_request_id, []):
            if pool == "primary":
                self.lru.pop(block, None)
                self.free_primary.append(block)
            else:
                self.free_secondary.append(block)
