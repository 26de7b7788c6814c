import logging
from concurrent.futures import Future

from .config import KvCacheTierConfig
from . import device as dev
from .pools import BlockPool
from .transfer import BlockTransferEngine

logger = logging.getLogger(__name__)


class KVCacheManager:

    def __init__(self, config: KvCacheTierConfig):
        self.config = config
        self.primary = BlockPool(config, config.num_primary_blocks, False)
        self.secondary = BlockPool(config, config.num_secondary_blocks, True)
        self._transfers = BlockTransferEngine(self.primary.data,
                                              self.secondary.data,
                                              config.max_transfer_workers)
        self._compute = dev.compute_stream()
        self.block_tables: dict[int, list[int]] = {}
        self._offloaded: dict[int, list[int]] = {}
        self._inflight: list[tuple[Future, list[int]]] = []

    def add_sequence(self, request_id: int, num_blocks: int) -> list[int]:
        gpu_ids = self.primary.allocate(num_blocks)
        self.block_tables[request_id] = gpu_ids
        return gpu_ids

    def free_resources(self, request_id: int) -> None:
        if request_id in self._offloaded:
            self.secondary.release(self._offloaded.pop(request_id))
            return
        self.primary.release(self.block_tables.pop(request_id))

    def offload_request(self, request_id: int) -> None:
        gpu_ids = self.block_tables.pop(request_id)
        host_ids = self.secondary.allocate(len(gpu_ids))
        dev.order_after(self._transfers.stream, self._compute)
        fut = self._transfers.submit_offload(gpu_ids, host_ids)
        self._offloaded[request_id] = host_ids
        self._inflight.append((fut, gpu_ids))

    def onboard_request(self, request_id: int) -> list[int]:
        host_ids = self._offloaded.pop(request_id)
        gpu_ids = self.primary.allocate(len(host_ids))
        dev.order_after(self._transfers.stream, self._compute)
        fut = self._transfers.submit_onboard(host_ids, gpu_ids)
        self.block_tables[request_id] = gpu_ids
        self._inflight.append((fut, []))
        fut.add_done_callback(
            lambda _f, ids=host_ids: self.secondary.release(ids))
        return gpu_ids

    def sync_transfers(self) -> None:
        """Called by the executor before the next forward step."""
        for fut, released_gpu_ids in self._inflight:
            done = fut.result()
            self._compute.wait_event(done)
            if released_gpu_ids:
                self.primary.release(released_gpu_ids)
        self._inflight.clear()
