import logging
from dataclasses import dataclass

import cupy

from .constants import DEFAULT_HOST_PAGES, KV_DTYPE, PAGE_TOKENS
from .device import StreamSet, pinned_empty
from .spill import PageSpiller, SpillBatch
from .transfer import pages_to_host

logger = logging.getLogger(__name__)


@dataclass
class PagedKVCacheConfig:
    num_gpu_pages: int
    num_heads: int
    head_dim: int
    num_host_pages: int = DEFAULT_HOST_PAGES
    device_id: int = 0
    spill_dir: str | None = None


class PagedKVCache:
    def __init__(self, config: PagedKVCacheConfig) -> None:
        self.config = config
        self.streams = StreamSet(config.device_id)
        page_shape = (PAGE_TOKENS, 2, config.num_heads, config.head_dim)
        with cupy.cuda.Device(config.device_id):
            self.gpu_pages = cupy.zeros(
                (config.num_gpu_pages, *page_shape), dtype=KV_DTYPE)
        self.host_pages = pinned_empty(
            (config.num_host_pages, *page_shape), KV_DTYPE)
        self._free_slots = list(range(config.num_host_pages))
        self.page_to_slot: dict[int, int] = {}
        self.spiller = (
            PageSpiller(self.host_pages, config.spill_dir)
            if config.spill_dir else None
        )

    def write_tokens(self, page_id: int, start: int, kv: cupy.ndarray) -> None:
        with self.streams.compute:
            self.gpu_pages[page_id, start:start + kv.shape[0]] = kv

    def _take_slots(self, n: int) -> list[int]:
        if len(self._free_slots) < n:
            raise RuntimeError(f"host page pool exhausted ({n} requested)")
        taken, self._free_slots = self._free_slots[:n], self._free_slots[n:]
        return taken

    def offload(self, page_ids: list[int]) -> cupy.cuda.Event:
        slots = self._take_slots(len(page_ids))
        produced = self.streams.compute.record()
        self.streams.offload.wait_event(produced)
        with self.streams.offload:
            nbytes = pages_to_host(
                self.gpu_pages, page_ids, self.host_pages, slots,
                self.streams.offload)
            done = self.streams.offload.record()
        self.streams.compute.wait_event(done)
        self.page_to_slot.update(zip(page_ids, slots))
        logger.debug("offloading %d pages (%d bytes)", len(page_ids), nbytes)
        if self.spiller is not None:
            self.spiller.submit(SpillBatch(list(page_ids), slots, done))
        return done

