from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

from vllm.logger import init_logger

logger = init_logger(__name__)


@dataclass
class TransferSpec:
    gpu_block_ids: list[int]
    cpu_block_ids: list[int]


@dataclass
class OffloadingConnectorMetadata:
    reqs_to_load: dict[str, TransferSpec] = field(default_factory=dict)
    reqs_to_store: dict[str, TransferSpec] = field(default_factory=dict)


class OffloadingConnectorScheduler:
    """Scheduler-side bookkeeping: which CPU blocks hold which request's KV."""

    def __init__(self, num_cpu_blocks: int):
        self._free_cpu_blocks = list(range(num_cpu_blocks))
        self._lru: OrderedDict[int, int] = OrderedDict()  # block hash -> cpu block
        self._pending = OffloadingConnectorMetadata()

    def lookup(self, block_hashes: list[int]) -> list[int]:
        hits = []
        for h in block_hashes:
            if h not in self._lru:
                break
            self._lru.move_to_end(h)
            hits.append(self._lru[h])
        return hits

    def schedule_load(self, req_id: str, gpu_block_ids: list[int], cpu_block_ids: list[int]) -> None:
        self._pending.reqs_to_load[req_id] = TransferSpec(gpu_block_ids, cpu_block_ids)

    def schedule_store(self, req_id: str, block_hashes: list[int], gpu_block_ids: list[int]) -> None:
        cpu_ids = []
        for h in block_hashes:
            if not self._free_cpu_blocks:
                _, evicted = self._lru.popitem(last=False)
                self._free_cpu_blocks.append(evicted)
            cpu_ids.append(self._free_cpu_blocks.pop())
            self._lru[h] = cpu_ids[-1]
        self._pending.reqs_to_store[req_id] = TransferSpec(gpu_block_ids, cpu_ids)

    def build_connector_meta(self) -> OffloadingConnectorMetadata:
        meta, self._pending = self._pending, OffloadingConnectorMetadata()
        logger.debug("offload meta: %d loads, %d stores", len(meta.reqs_to_load), len(meta.reqs_to_store))
        return meta
