"""Stagers move a request's KV pages between the paged KV pool and one contiguous pinned
staging region, so that the transfer engine only ever sends/receives flat host buffers.
Subclasses say which side is the source by building the pointer lists."""

import abc
from typing import List, Tuple

import torch
from cuda.bindings import driver as cuda

from disagg.cuda_copy import batch_memcpy


class BaseKVStager(abc.ABC):
    # The decode side reads the pinned staging region, which no stream writes, so the copy
    # engine may start reading it as soon as the call is made.
    SRC_ACCESS_ORDER = cuda.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY

    def __init__(self, kv_pool, max_pages: int, num_slots: int = 2):
        self.kv_pool = kv_pool
        self.page_bytes = kv_pool.page_size * kv_pool.k_buffer[0][0].numel() * kv_pool.k_buffer[0].element_size()
        self.kv_data_ptrs = [buf.data_ptr() for buf in kv_pool.k_buffer + kv_pool.v_buffer]
        self.slot_bytes = max_pages * self.page_bytes * len(self.kv_data_ptrs)
        self.staging = torch.empty(num_slots * self.slot_bytes, dtype=torch.uint8, pin_memory=True)
        self.stream = torch.cuda.Stream()

    def slot_view(self, slot: int, nbytes: int) -> torch.Tensor:
        return self.staging[slot * self.slot_bytes : slot * self.slot_bytes + nbytes]

    def _pairs(self, page_indices: List[int], slot: int):
        base = self.staging.data_ptr() + slot * self.slot_bytes
        offset = 0
        for buf_ptr in self.kv_data_ptrs:
            for page in page_indices:
                yield buf_ptr + page * self.page_bytes, base + offset
                offset += self.page_bytes

    @abc.abstractmethod
    def _ptr_lists(self, page_indices: List[int], slot: int) -> Tuple[List[int], List[int]]:
        """Return (dst_ptrs, src_ptrs) for the pages."""

    def stage(self, page_indices: List[int], slot: int) -> torch.cuda.Event:
        dst_ptrs, src_ptrs = self._ptr_lists(page_indices, slot)
        sizes = [self.page_bytes] * len(dst_ptrs)
        # the pages were written (prefill) or last read (decode) by the scheduler's stream
        self.stream.wait_stream(torch.cuda.current_stream())
        batch_memcpy(dst_ptrs, src_ptrs, sizes, self.SRC_ACCESS_ORDER, self.stream)
        done = torch.cuda.Event()
        done.record(self.stream)
        return done

    def staged_bytes(self, num_pages: int) -> int:
        return num_pages * self.page_bytes * len(self.kv_data_ptrs)
