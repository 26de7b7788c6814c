# Copyright 2025 The HuggingFace Team. All rights reserved.
import ctypes
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Dict, List, Optional, Sequence

import torch

from . import cudart
from .constants import (CUDA_MEM_LOCATION_TYPE_DEVICE, CUDA_MEM_LOCATION_TYPE_HOST, CUDA_MEMCPY_HOST_TO_DEVICE,
                        NUM_STAGING_SLOTS, PREFETCH_WORKERS, WRITEBACK_SRC_ACCESS_ORDER)

logger = logging.getLogger(__name__)


class StagingSlots:
    """Execution-device slots that offloaded modules are loaded into, one module per slot."""

    def __init__(self, weights_map: Sequence[Dict[str, torch.Tensor]], execution_device: torch.device):
        self.execution_device = execution_device
        self.host = [{name: t.pin_memory() for name, t in weights.items()} for weights in weights_map]
        slot_bytes = max(sum(t.numel() * t.element_size() for t in w.values()) for w in self.host)
        self.slots = [torch.empty(slot_bytes, dtype=torch.uint8, device=execution_device)
                      for _ in range(NUM_STAGING_SLOTS)]
        self.copy_stream = cudart.stream_create()
        self.loaded = [cudart.event_create() for _ in range(NUM_STAGING_SLOTS)]
        self.produced = cudart.event_create()
        self.pending: List[Optional[Future]] = [None] * NUM_STAGING_SLOTS
        self._executor = ThreadPoolExecutor(max_workers=PREFETCH_WORKERS, thread_name_prefix="offload-prefetch")

    def slot_of(self, index: int) -> int:
        return index % NUM_STAGING_SLOTS

    def views(self, index: int) -> Dict[str, torch.Tensor]:
        base = self.slots[self.slot_of(index)]
        out, offset = {}, 0
        for name, host in self.host[index].items():
            nbytes = host.numel() * host.element_size()
            out[name] = base[offset:offset + nbytes].view(host.dtype).view(host.shape)
            offset += nbytes
        return out

    def prefetch(self, index: int) -> None:
        slot = self.slot_of(index)
        self.pending[slot] = self._executor.submit(self._load, index, slot)

    def _load(self, index: int, slot: int) -> None:
        lib = cudart.lib()
        dst_views = self.views(index)
        for name, host in self.host[index].items():
            nbytes = host.numel() * host.element_size()
            # expect: KVG004
            cudart.check(lib.cudaMemcpyAsync(dst_views[name].data_ptr(), host.data_ptr(), nbytes,
                                             CUDA_MEMCPY_HOST_TO_DEVICE, self.copy_stream), "cudaMemcpyAsync")
        cudart.event_record(self.loaded[slot], self.copy_stream)

    def wait_loaded(self, index: int, compute_stream) -> None:
        slot = self.slot_of(index)
        future = self.pending[slot]
        if future is None:
            self.prefetch(index)
            future = self.pending[slot]
        future.result()
        self.pending[slot] = None
        cudart.stream_wait_event(compute_stream, self.loaded[slot])

    def write_back(self, index: int, names: Sequence[str], compute_stream) -> None:
        """Mirror buffers the module mutated during forward into its pinned host copy."""
        if not names:
            return
        cudart.event_record(self.produced, compute_stream)
        cudart.stream_wait_event(self.copy_stream, self.produced)
        views, n = self.views(index), len(names)
        dsts = (ctypes.c_void_p * n)(*[self.host[index][nm].data_ptr() for nm in names])
        srcs = (ctypes.c_void_p * n)(*[views[nm].data_ptr() for nm in names])
        sizes = (ctypes.c_size_t * n)(*[views[nm].numel() * views[nm].element_size() for nm in names])
        attrs = (cudart.cudaMemcpyAttributes * 1)()
        attrs[0].srcAccessOrder = WRITEBACK_SRC_ACCESS_ORDER
        attrs[0].srcLocHint = cudart.cudaMemLocation(CUDA_MEM_LOCATION_TYPE_DEVICE, self.execution_device.index or 0)
        attrs[0].dstLocHint = cudart.cudaMemLocation(CUDA_MEM_LOCATION_TYPE_HOST, 0)
        attr_idxs = (ctypes.c_size_t * 1)(0)
        fail_idx = ctypes.c_size_t(0)
        # expect: KVG002
        code = cudart.lib().cudaMemcpyBatchAsync(dsts, srcs, sizes, ctypes.c_size_t(n), attrs, attr_idxs,
                                                 ctypes.c_size_t(1), ctypes.byref(fail_idx), self.copy_stream)
        cudart.check(code, f"cudaMemcpyBatchAsync (failed copy {fail_idx.value})")
        logger.debug("wrote back %d buffers of module %d", n, index)
