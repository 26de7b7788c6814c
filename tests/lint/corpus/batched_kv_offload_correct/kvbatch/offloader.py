# SPDX-License-Identifier: Apache-2.0
# Standard
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List, Optional
import ctypes
import logging

# Third Party
from cuda.bindings import driver
import torch

# First Party
from kvbatch.batch_copy import batched_d2h, make_d2h_attributes
from kvbatch.cuda_utils import alloc_pinned, check, create_event, create_stream
from kvbatch.host_store import HostKVStore

logger = logging.getLogger(__name__)


class PagedKVOffloader:
    """Copies the selected blocks of every layer into one pinned arena.

    kv_caches are laid out as [num_blocks, 2, block_size, num_heads, head_size],
    so one block of one layer is a single contiguous range. The caller keeps
    the offloaded blocks allocated until the returned future has resolved.
    """

    def __init__(self, kv_caches: List[torch.Tensor], arena_blocks: int, store: HostKVStore):
        self.kv_caches = kv_caches
        self.block_bytes = kv_caches[0].stride(0) * kv_caches[0].element_size()
        self.arena_blocks = arena_blocks
        self.arena_ptr = alloc_pinned(arena_blocks * self.block_bytes)
        self.store = store
        self.stream = create_stream()
        self.ready_event = create_event()
        self.d2h_attrs = make_d2h_attributes(kv_caches[0].device.index)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-offload")
        self._pending: Optional[Future] = None

    def offload(self, request_id: str, block_ids: List[int]) -> Future:
        num_copies = len(block_ids) * len(self.kv_caches)
        if num_copies > self.arena_blocks:
            raise ValueError(f"{num_copies} blocks exceed arena of {self.arena_blocks}")
        if self._pending is not None:
            self._pending.result()

        compute_stream = torch.cuda.current_stream().cuda_stream
        check(driver.cuEventRecord(self.ready_event, compute_stream))
        check(driver.cuStreamWaitEvent(self.stream, self.ready_event, 0))

        dsts, srcs, sizes = [], [], []
        for layer in self.kv_caches:
            base = layer.data_ptr()
            for block_id in block_ids:
                srcs.append(base + block_id * self.block_bytes)
                dsts.append(self.arena_ptr + len(dsts) * self.block_bytes)
                sizes.append(self.block_bytes)
        batched_d2h(dsts, srcs, sizes, self.d2h_attrs, self.stream)

        done = create_event()
        check(driver.cuEventRecord(done, self.stream))
        self._pending = self._executor.submit(self._finish, request_id, done, num_copies)
        return self._pending

    def _finish(self, request_id: str, done: driver.CUevent, num_copies: int) -> int:
        check(driver.cuEventSynchronize(done))
        check(driver.cuEventDestroy(done))
        payload = ctypes.string_at(self.arena_ptr, num_copies * self.block_bytes)
        self.store.put(request_id, payload)
        logger.debug("Offloaded %d blocks for %s", num_copies, request_id)
        return num_copies
