# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass
from typing import List
import logging

# Third Party
from cuda.bindings import driver
import torch

# First Party
from lmcache_dma.constants import (
    COPY_FLAGS,
    FLUSH_SRC_ORDER,
    MAX_DESCRIPTORS_PER_CALL,
    STORE_SRC_ORDER,
)
from lmcache_dma.cuda_utils import checkCudaErrors, create_event, create_stream, make_attrs

logger = logging.getLogger(__name__)


@dataclass
class MemoryObj:
    tensor: torch.Tensor  # pinned, [num_layers, 2, num_tokens, hidden]

    @property
    def ptr(self) -> int:
        return self.tensor.data_ptr()


class DMABatchGPUConnector:
    """GPU connector for a flat per-layer KV buffer ([2, num_slots, hidden]).

    Every chunk occupies a contiguous slot range, so one (layer, k/v) slice is
    one descriptor of a single cuMemcpyBatchAsync call.
    """

    def __init__(self, kvcaches: List[torch.Tensor]):
        self.kvcaches = kvcaches
        self.num_layers = len(kvcaches)
        self.device_id = kvcaches[0].device.index
        self.token_bytes = kvcaches[0].stride(1) * kvcaches[0].element_size()
        self.kv_stride_bytes = kvcaches[0].stride(0) * kvcaches[0].element_size()
        self._d2h_stream = create_stream()
        self._store_attrs = make_attrs(STORE_SRC_ORDER, self.device_id, COPY_FLAGS)
        self._flush_attrs = make_attrs(FLUSH_SRC_ORDER, self.device_id, COPY_FLAGS)

    def _descriptors(self, memory_objs: List[MemoryObj], slot_starts: List[int], num_tokens: List[int]):
        dsts, srcs, sizes = [], [], []
        for obj, slot, n in zip(memory_objs, slot_starts, num_tokens):
            nbytes = n * self.token_bytes
            for layer_id, kv in enumerate(self.kvcaches):
                for k_or_v in range(2):
                    srcs.append(driver.CUdeviceptr(kv.data_ptr() + k_or_v * self.kv_stride_bytes + slot * self.token_bytes))
                    dsts.append(driver.CUdeviceptr(obj.ptr + (2 * layer_id + k_or_v) * nbytes))
                    sizes.append(nbytes)
        return dsts, srcs, sizes

    def _issue_batch(self, dsts, srcs, sizes, attrs) -> None:
        for off in range(0, len(sizes), MAX_DESCRIPTORS_PER_CALL):
            end = min(off + MAX_DESCRIPTORS_PER_CALL, len(sizes))
            # expect: KVG001, KVG002
            err, fail_idx = driver.cuMemcpyBatchAsync(dsts[off:end], srcs[off:end], sizes[off:end], end - off, [attrs], [0], 1, self._d2h_stream)
            if err != driver.CUresult.CUDA_SUCCESS:
                raise RuntimeError(f"cuMemcpyBatchAsync failed: {int(err)} at {off + int(fail_idx)}")

    def from_gpu(
        self,
        memory_objs: List[MemoryObj],
        slot_starts: List[int],
        num_tokens: List[int],
        compute_stream: driver.CUstream,
    ) -> driver.CUevent:
        """Queue the store; returns an event that fires when the host copy is done."""
        dsts, srcs, sizes = self._descriptors(memory_objs, slot_starts, num_tokens)
        ready, done = create_event(), create_event()
        checkCudaErrors(driver.cuEventRecord(ready, compute_stream))
        checkCudaErrors(driver.cuStreamWaitEvent(self._d2h_stream, ready, 0))
        self._issue_batch(dsts, srcs, sizes, self._store_attrs)
        checkCudaErrors(driver.cuEventRecord(done, self._d2h_stream))
        checkCudaErrors(driver.cuEventDestroy(ready))
        return done

    def flush_from_gpu(
        self,
        memory_objs: List[MemoryObj],
        slot_starts: List[int],
        num_tokens: List[int],
    ) -> None:
        """Blocking store used when a request finishes or is preempted."""
        dsts, srcs, sizes = self._descriptors(memory_objs, slot_starts, num_tokens)
        self._issue_batch(dsts, srcs, sizes, self._flush_attrs)
        checkCudaErrors(driver.cuStreamSynchronize(self._d2h_stream))
