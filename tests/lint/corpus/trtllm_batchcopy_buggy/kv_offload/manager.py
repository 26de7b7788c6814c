import logging
from typing import Dict, List

import torch
from cuda.bindings import driver

from kv_offload.driver_utils import check_cu
from kv_offload.snapshot import KvCacheSnapshotter
from kv_offload.transfer import BatchedBlockTransfer

logger = logging.getLogger(__name__)


class HostOffloadManager:
    """Secondary (host) tier for the primary KV block pool ``primary[num_blocks, block_bytes]``."""

    def __init__(self, primary: torch.Tensor, num_host_blocks: int, max_snapshot_blocks: int = 256):
        self.primary = primary
        self.block_bytes = primary.shape[1]
        device_id = primary.device.index or 0
        self.host_pool = torch.empty((num_host_blocks, self.block_bytes), dtype=torch.uint8, pin_memory=True)
        self.transfer = BatchedBlockTransfer(device_id)
        self.snapshotter = KvCacheSnapshotter(device_id, max_snapshot_blocks, self.block_bytes)
        self._free_slots: List[int] = list(range(num_host_blocks))
        self._offloaded: Dict[int, int] = {}  # block hash -> host slot

    def _dev_ptr(self, block_idx: int) -> driver.CUdeviceptr:
        return driver.CUdeviceptr(self.primary[block_idx].data_ptr())

    def _host_ptr(self, slot: int) -> driver.CUdeviceptr:
        return driver.CUdeviceptr(self.host_pool[slot].data_ptr())

    def offload(self, evicted: Dict[int, int]) -> int:
        """evicted: block hash -> primary block index about to be reused."""
        stream = torch.cuda.current_stream().cuda_stream
        items = [(h, b) for h, b in evicted.items() if h not in self._offloaded][: len(self._free_slots)]
        if not items:
            return 0
        slots = [self._free_slots.pop() for _ in items]
        done = self.transfer.offload_blocks([self._dev_ptr(b) for _, b in items],
                                            [self._host_ptr(s) for s in slots], self.block_bytes, stream)
        check_cu(driver.cuStreamWaitEvent(stream, done, 0))
        self._offloaded.update((h, s) for (h, _), s in zip(items, slots))
        return len(items)

    def onboard(self, targets: Dict[int, int]) -> int:
        """targets: block hash -> primary block index to fill from the host tier."""
        stream = torch.cuda.current_stream().cuda_stream
        items = [(self._offloaded.pop(h), b) for h, b in targets.items() if h in self._offloaded]
        if not items:
            return 0
        done = self.transfer.onboard_blocks([self._host_ptr(s) for s, _ in items],
                                            [self._dev_ptr(b) for _, b in items], self.block_bytes, stream)
        check_cu(driver.cuStreamWaitEvent(stream, done, 0))
        self._free_slots.extend(s for s, _ in items)
        return len(items)

    def save_for_connector(self, block_indices: List[int]) -> bytes:
        stream = torch.cuda.current_stream().cuda_stream
        return self.snapshotter.snapshot([self._dev_ptr(b) for b in block_indices], stream)
