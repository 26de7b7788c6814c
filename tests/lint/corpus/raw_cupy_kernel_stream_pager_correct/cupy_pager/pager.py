"""Page KV blocks between device memory, pinned host memory and disk (CuPy)."""
import logging
import os

import cupy as cp
import cupyx
import numpy as np

from .kernels import launch_append

logger = logging.getLogger(__name__)


class KVPager:

    def __init__(self, num_pages, page_tokens, row, num_host_pages, spill_dir, dtype=np.float16):
        self.page_shape = (page_tokens, row)
        self.spill_dir = spill_dir
        os.makedirs(spill_dir, exist_ok=True)
        self.compute_stream = cp.cuda.Stream(non_blocking=True)
        self.d2h_stream = cp.cuda.Stream(non_blocking=True)
        self.h2d_stream = cp.cuda.Stream(non_blocking=True)
        self.dev_pages = cp.zeros((num_pages,) + self.page_shape, dtype=dtype)
        self.host_pages = cupyx.zeros_pinned((num_host_pages,) + self.page_shape, dtype=dtype)
        self.out_done = None
        self.in_done = None

    def append(self, page_ids, slot, kv):
        """Write one token of keys/values for a batch of sequences (compute stream)."""
        with self.compute_stream:
            self._wait_loads()
            launch_append(self.dev_pages, kv, cp.asarray(page_ids, dtype=cp.int32), slot)

    def _wait_loads(self):
        # compute-stream readers and writers of the pages follow the last swap-in
        if self.in_done is not None:
            self.compute_stream.wait_event(self.in_done)

    def snapshot(self, page_id):
        """Debug helper: blocking copy of one page on the stream that wrote it."""
        self._wait_loads()
        return cp.asnumpy(self.dev_pages[page_id], stream=self.compute_stream)

    def swap_out(self, page_ids, host_slots):
        if self.in_done is not None:
            # host slots may still be read by a swap-in
            self.d2h_stream.wait_event(self.in_done)
        ready = self.compute_stream.record()
        self.d2h_stream.wait_event(ready)
        for page_id, host_slot in zip(page_ids, host_slots):
            self.dev_pages[page_id].get(stream=self.d2h_stream, out=self.host_pages[host_slot], blocking=False)
        self.out_done = self.d2h_stream.record()

    def evict_to_disk(self, page_ids, host_slots, name):
        self.swap_out(page_ids, host_slots)
        path = os.path.join(self.spill_dir, f"{name}.kv")
        self.d2h_stream.synchronize()
        with open(path, "wb") as f:
            for host_slot in host_slots:
                self.host_pages[host_slot].tofile(f)
        logger.debug("spilled %d pages to %s", len(host_slots), path)
        return path

    def free_pages(self, page_ids):
        """Pages go back to the allocator; later writes to them must follow the swap-out."""
        if self.out_done is not None:
            self.compute_stream.wait_event(self.out_done)

    def swap_in(self, host_slots, page_ids):
        if self.out_done is not None:
            self.h2d_stream.wait_event(self.out_done)
        self.h2d_stream.wait_event(self.compute_stream.record())
        for host_slot, page_id in zip(host_slots, page_ids):
            self.dev_pages[page_id].set(self.host_pages[host_slot], stream=self.h2d_stream)
        self.in_done = self.h2d_stream.record()

    def load_from_disk(self, path, host_slots, page_ids):
        if self.in_done is not None:
            # the host pages may still be read by the previous swap-in
            self.in_done.synchronize()
        if self.out_done is not None:
            # ... or written by the previous swap-out
            self.out_done.synchronize()
        data = np.fromfile(path, dtype=self.host_pages.dtype).reshape((-1,) + self.page_shape)
        for i, host_slot in enumerate(host_slots):
            self.host_pages[host_slot][...] = data[i]
        self.swap_in(host_slots, page_ids)
