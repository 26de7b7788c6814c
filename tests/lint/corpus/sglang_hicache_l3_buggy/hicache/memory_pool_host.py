import logging
import threading

import torch

logger = logging.getLogger(__name__)


class MHATokenToKVPoolHost:
    """Pinned host mirror of the device KV pool.

    Uses the ``page_first`` layout, [2, size, layer_num, head_num, head_dim],
    so the K (or V) data of one page for *all* layers is contiguous and can be
    handed to the L3 store as a single object.
    """

    def __init__(self, device_pool, host_to_device_ratio: float, page_size: int):
        self.device_pool = device_pool
        self.page_size = page_size
        self.layer_num = device_pool.layer_num
        self.head_num = device_pool.head_num
        self.head_dim = device_pool.head_dim
        self.dtype = device_pool.store_dtype
        self.size = int(device_pool.size * host_to_device_ratio) // page_size * page_size
        self.num_pages = self.size // page_size

        self.kv_buffer = torch.empty(
            (2, self.size, self.layer_num, self.head_num, self.head_dim),
            dtype=self.dtype,
            device="cpu",
            pin_memory=True,
        )
        self.lock = threading.RLock()
        self.free_pages = list(range(self.num_pages))

    @property
    def page_bytes(self) -> int:
        return self.page_size * self.layer_num * self.head_num * self.head_dim * self.dtype.itemsize

    def alloc_pages(self, num_pages: int) -> list[int] | None:
        with self.lock:
            if num_pages > len(self.free_pages):
                return None
            pages, self.free_pages = self.free_pages[:num_pages], self.free_pages[num_pages:]
            return pages

    def free_pages_(self, pages: list[int]) -> None:
        with self.lock:
            self.free_pages.extend(pages)

    def _page(self, page_id: int) -> slice:
        return slice(page_id * self.page_size, (page_id + 1) * self.page_size)

    def get_page_kv(self, page_id: int) -> tuple[torch.Tensor, torch.Tensor]:
        s = self._page(page_id)
        return self.kv_buffer[0, s], self.kv_buffer[1, s]

    def get_page_buffer_meta(self, pages: list[int]) -> tuple[list[int], list[int]]:
        """Per-page K/V pointers and sizes for zero-copy batch reads from L3."""
        ptrs, sizes = [], []
        for page_id in pages:
            k, v = self.get_page_kv(page_id)
            ptrs += [k.data_ptr(), v.data_ptr()]
            sizes += [self.page_bytes, self.page_bytes]
        return ptrs, sizes

    def backup_pages_from_device(self, device_pool, host_pages: list[int], device_pages: list[int]) -> None:
        # device pool is layer_first: [2, layer_num, size, head_num, head_dim]
        for host_page, device_page in zip(host_pages, device_pages):
            src = device_pool.kv_buffer[:, :, self._page(device_page)].transpose(1, 2)
            # expect: KVG001
            self.kv_buffer[:, self._page(host_page)].copy_(src, non_blocking=True)

    def load_pages_to_device(self, device_pool, host_pages: list[int], device_pages: list[int]) -> None:
        for host_page, device_page in zip(host_pages, device_pages):
            src = self.kv_buffer[:, self._page(host_page)].transpose(1, 2)
            device_pool.kv_buffer[:, :, self._page(device_page)].copy_(src, non_blocking=True)
