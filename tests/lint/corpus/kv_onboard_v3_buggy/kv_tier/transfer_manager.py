import ctypes
import logging
from typing import Optional

import torch

from kv_tier.block_pool import KVCacheBlock
from kv_tier.cudart import (check, create_event, create_stream, cudaMemcpyDeviceToHost,
                            cudaMemcpyHostToDevice, get_cudart, host_alloc)

logger = logging.getLogger(__name__)


class KVCacheTransferManager:
    """Moves whole KV blocks between the primary (device) pool and the
    secondary (pinned host) pool on dedicated streams."""

    def __init__(self, primary_pool: torch.Tensor, num_secondary_blocks: int):
        assert primary_pool.is_cuda and primary_pool.dim() == 2
        self._rt = get_cudart()
        self.block_bytes = primary_pool.stride(0) * primary_pool.element_size()
        self._primary_base = primary_pool.data_ptr()
        self._secondary_base = host_alloc(num_secondary_blocks * self.block_bytes)
        self._free_secondary = list(range(num_secondary_blocks))
        self._offload_stream = create_stream()
        self._onboard_stream = create_stream()
        self._compute_ready = create_event()
        self._offload_done: dict[int, ctypes.c_void_p] = {}   # secondary idx -> event
        self._evict_done: dict[int, ctypes.c_void_p] = {}     # primary block id -> event

    def _compute_stream(self) -> ctypes.c_void_p:
        return ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

    def _order_after_compute(self, stream: ctypes.c_void_p) -> None:
        check(self._rt.cudaEventRecord(self._compute_ready, self._compute_stream()),
              "cudaEventRecord")
        check(self._rt.cudaStreamWaitEvent(stream, self._compute_ready, 0), "cudaStreamWaitEvent")

    def _primary_ptr(self, block_id: int) -> int:
        return self._primary_base + block_id * self.block_bytes

    def _secondary_ptr(self, idx: int) -> int:
        return self._secondary_base + idx * self.block_bytes

    def on_evict(self, block: KVCacheBlock) -> Optional[int]:
        """BlockPool callback: keep a host copy of a block that is about to be reused."""
        if block.secondary_idx is not None or not self._free_secondary:
            return block.secondary_idx
        idx = self._free_secondary.pop()
        self._order_after_compute(self._offload_stream)
        check(self._rt.cudaMemcpyAsync(self._secondary_ptr(idx), self._primary_ptr(block.block_id),
                                       self.block_bytes, cudaMemcpyDeviceToHost,
                                       self._offload_stream), "cudaMemcpyAsync(D2H)")
        done = create_event()
        check(self._rt.cudaEventRecord(done, self._offload_stream), "cudaEventRecord")
        self._offload_done[idx] = done
        self._evict_done[block.block_id] = done
        block.secondary_idx = idx
        return idx

    def onboard(self, secondary_idx: int, dst: KVCacheBlock) -> None:
        stream = self._onboard_stream
        for pending in (self._offload_done.get(secondary_idx),
                        self._evict_done.pop(dst.block_id, None)):
            if pending is not None:
                check(self._rt.cudaStreamWaitEvent(stream, pending, 0), "cudaStreamWaitEvent")
        # expect: KVG004
        check(self._rt.cudaMemcpyAsync(self._primary_ptr(dst.block_id), self._secondary_ptr(secondary_idx), self.block_bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync(H2D)")
        loaded = create_event()
        check(self._rt.cudaEventRecord(loaded, stream), "cudaEventRecord")
        check(self._rt.cudaStreamWaitEvent(self._compute_stream(), loaded, 0),
              "cudaStreamWaitEvent")
