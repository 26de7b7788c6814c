"""Paged KV cache on cupy with host offload of cold blocks."""
import hashlib
import logging
from typing import List, Tuple

import cupy as cp
import cupyx
import numpy as np

from . import kernels

logger = logging.getLogger(__name__)


class PagedKVCache:

    def __init__(self, num_blocks: int, block_size: int, num_heads: int, head_dim: int,
                 num_host_blocks: int = 256) -> None:
        self.block_size = block_size
        self.token_stride = num_heads * head_dim
        self.compute_stream = cp.cuda.Stream(non_blocking=True)
        self.d2h_stream = cp.cuda.Stream(non_blocking=True)
        self._last_offload = None
        # Everything that touches the device cache runs on the compute stream,
        # including the zero fill below.
        self.compute_stream.use()
        shape = (num_blocks, block_size, num_heads, head_dim)
        self.k_cache = cp.zeros(shape, dtype=cp.float32)
        self.v_cache = cp.zeros(shape, dtype=cp.float32)
        host_shape = (num_host_blocks,) + shape[1:]
        self.host_k = cupyx.empty_pinned(host_shape, dtype=np.float32)
        self.host_v = cupyx.empty_pinned(host_shape, dtype=np.float32)
        self._host_free: List[int] = list(range(num_host_blocks))

    def _after_offloads(self) -> None:
        # Kernels that overwrite cache blocks must not run ahead of a pending
        # offload that still reads them.
        if self._last_offload is not None:
            self.compute_stream.wait_event(self._last_offload)

    # ---------------------------------------------------------------- compute
    def append(self, k: cp.ndarray, v: cp.ndarray, slot_mapping: cp.ndarray) -> None:
        """Scatter the new tokens' keys and values into their cache slots."""
        self.compute_stream.use()
        self._after_offloads()
        n = int(k.shape[0])
        kernels.write_kv(
            (n,), (kernels.THREADS,),
            (k, v, self.k_cache, self.v_cache, slot_mapping.astype(cp.int64),
             np.int32(n), np.int32(self.token_stride)),
        )

    def reset_blocks(self, block_ids: List[int]) -> None:
        self.compute_stream.use()
        self._after_offloads()
        ids = cp.asarray(block_ids, dtype=cp.int32)
        numel = np.int64(self.block_size * self.token_stride)
        for cache in (self.k_cache, self.v_cache):
            kernels.zero_blocks((32, len(block_ids)), (256,), (cache, ids, numel))

    # ---------------------------------------------------------------- offload
    def offload_blocks(self, block_ids: List[int]) -> Tuple[List[int], cp.cuda.Event]:
        """Start copying blocks to pinned host slots; returns the slots and an event."""
        if len(block_ids) > len(self._host_free):
            raise MemoryError("host pool exhausted")
        host_ids = [self._host_free.pop() for _ in block_ids]
        # The blocks were written by kernels on the compute stream.
        ready = cp.cuda.Event(disable_timing=True)
        ready.record(self.compute_stream)
        self.d2h_stream.wait_event(ready)
        self.d2h_stream.use()
        try:
            for b, h in zip(block_ids, host_ids):
                self.k_cache[b].get(stream=self.d2h_stream, out=self.host_k[h], blocking=False)
                self.v_cache[b].get(stream=self.d2h_stream, out=self.host_v[h], blocking=False)
            done = cp.cuda.Event(disable_timing=True)
            done.record(self.d2h_stream)
            self._last_offload = done
        finally:
            self.compute_stream.use()
        return host_ids, done

    def snapshot_digest(self, block_ids: List[int]) -> str:
        """Offload blocks and return a content digest used as a prefix-cache key."""
        host_ids, done = self.offload_blocks(block_ids)
        done.synchronize()
        h = hashlib.blake2b(digest_size=16)
        for hid in host_ids:
            h.update(self.host_k[hid].tobytes())
            h.update(self.host_v[hid].tobytes())
        return h.hexdigest()

    def release_host(self, host_ids: List[int]) -> None:
        self._host_free.extend(host_ids)

    def debug_block(self, block_id: int) -> list:
        """Blocking read of one block on the compute stream (tests only)."""
        arr = self.k_cache[block_id].get(stream=self.compute_stream)
        return arr.tolist()
