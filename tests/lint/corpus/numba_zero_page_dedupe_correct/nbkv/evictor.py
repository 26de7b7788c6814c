"""Evicts KV pages to a pinned host tier and brings them back.

Pages that come back all zeros (padding-only pages of finished requests, or pages the
runner cleared) are not kept: they are recorded by key and restored with a memset."""
from collections import deque
from typing import Dict, List, Set, Tuple

import numpy as np
import torch
from numba import cuda

from .streams import torch_stream_for_numba


class HostPageTier:
    def __init__(self, pages: torch.Tensor, num_host_pages: int):
        self.pages = pages
        self._d_pages = cuda.as_cuda_array(pages)
        self.host = cuda.pinned_array((num_host_pages, pages.shape[1]), dtype=np.float16)
        self.stream = cuda.stream()
        self._compute_mark = cuda.event(timing=False)
        self.free_slots = deque(range(num_host_pages))
        self.slot_of: Dict[int, int] = {}
        self.zero_keys: Set[int] = set()

    def _after_compute(self) -> None:
        # order the tier's stream behind what this thread queued on torch's stream
        self._compute_mark.record(torch_stream_for_numba())
        self._compute_mark.wait(self.stream)

    def evict(self, victims: List[Tuple[int, int]]) -> List[int]:
        """victims: (gpu page, content key). Returns the gpu pages that may be reused."""
        self._after_compute()
        staged = []
        for page, key in victims:
            slot = self.free_slots.popleft()
            self._d_pages[page].copy_to_host(self.host[slot], stream=self.stream)
            staged.append((key, slot))
        # the zero check reads the pinned copies: wait for them to land first
        copied = cuda.event(timing=False)
        copied.record(self.stream)
        copied.synchronize()
        for key, slot in staged:
            if not self.host[slot].any():
                self.free_slots.append(slot)
                self.zero_keys.add(key)
            else:
                self.slot_of[key] = slot
        return [page for page, _ in victims]

    def restore(self, key: int, page: int) -> None:
        if key in self.zero_keys:
            self.pages[page].zero_()
            return
        slot = self.slot_of.pop(key)
        self._after_compute()
        self._d_pages[page].copy_to_device(self.host[slot], stream=self.stream)
        landed = cuda.event(timing=False)
        landed.record(self.stream)
        landed.wait(torch_stream_for_numba())
        self.free_slots.append(slot)
