"""OffloadConnector (a fork of vLLM's OffloadingConnector with a cuMemcpyBatchAsync DMA
path): scheduler side, per-step metadata and the KVConnectorBase_V1 facade."""

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from vllm.distributed.kv_transfer.kv_connector.v1.base import (
    KVConnectorBase_V1, KVConnectorMetadata, KVConnectorRole)

from kv_dma.worker import OffloadWorker


@dataclass
class OffloadMeta(KVConnectorMetadata):
    loads: Dict[str, Tuple[List[int], List[int]]] = field(default_factory=dict)   # cpu -> gpu
    stores: Dict[str, Tuple[List[int], List[int]]] = field(default_factory=dict)  # gpu -> cpu


class OffloadScheduler:
    def __init__(self, num_cpu_blocks: int, block_size: int):
        self.block_size = block_size
        self.lru: "OrderedDict[int, int]" = OrderedDict()
        self.free = list(range(num_cpu_blocks))
        self.meta = OffloadMeta()

    def num_hit_tokens(self, hashes: List[int], num_computed_tokens: int) -> int:
        start, n = num_computed_tokens // self.block_size, 0
        while start + n < len(hashes) and hashes[start + n] in self.lru:
            n += 1
        return n * self.block_size

    def on_alloc(self, req_id: str, hashes: List[int], gpu_blocks: List[int], num_tokens: int) -> None:
        n = num_tokens // self.block_size
        if n:
            self.meta.loads[req_id] = ([self.lru[h] for h in hashes[:n]], gpu_blocks[:n])

    def on_finished(self, req_id: str, hashes: List[int], gpu_blocks: List[int]) -> bool:
        todo = [(h, g) for h, g in zip(hashes, gpu_blocks) if h not in self.lru]
        cpu_blocks = []
        for h, _ in todo:
            cpu = self.free.pop() if self.free else self.lru.popitem(last=False)[1]
            self.lru[h] = cpu
            cpu_blocks.append(cpu)
        if todo:
            self.meta.stores[req_id] = ([g for _, g in todo], cpu_blocks)
        return bool(todo)

    def take_meta(self) -> OffloadMeta:
        meta, self.meta = self.meta, OffloadMeta()
        return meta


class OffloadConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role: KVConnectorRole):
        super().__init__(vllm_config, role)
        n = int(vllm_config.kv_transfer_config.kv_connector_extra_config.get("num_cpu_blocks", 4096))
        if role == KVConnectorRole.SCHEDULER:
            self.scheduler = OffloadScheduler(n, vllm_config.cache_config.block_size)
        else:
            self.worker = OffloadWorker(n)

    def register_kv_caches(self, kv_caches) -> None:
        self.worker.register_kv_caches(kv_caches)

    def start_load_kv(self, forward_context, **kwargs) -> None:
        self.worker.start_load_kv(self._get_connector_metadata())

    def wait_for_layer_load(self, layer_name: str) -> None: ...
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs) -> None: ...

    def wait_for_save(self) -> None:
        self.worker.wait_for_save(self._get_connector_metadata())

    def get_finished(self, finished_req_ids: Set[str]) -> Tuple[Optional[Set[str]], Optional[Set[str]]]:
        sent, recved = self.worker.get_finished()
        return sent or None, recved or None

    def get_num_new_matched_tokens(self, request, num_computed_tokens: int) -> Tuple[int, bool]:
        hit = self.scheduler.num_hit_tokens(request.block_hashes, num_computed_tokens)
        return hit, True  # loads are asynchronous: the request waits for finished_recving

    def update_state_after_alloc(self, request, blocks, num_external_tokens: int) -> None:
        self.scheduler.on_alloc(request.request_id, request.block_hashes,
                                blocks.get_block_ids()[0], num_external_tokens)

    def request_finished(self, request, block_ids) -> Tuple[bool, Optional[dict]]:
        return self.scheduler.on_finished(request.request_id, request.block_hashes, block_ids[0]), None

    def build_connector_meta(self, scheduler_output) -> OffloadMeta:
        return self.scheduler.take_meta()
