import logging
from typing import List

import torch
from cuda.bindings import driver

from kv_offload.constants import LOC_DEVICE, LOC_HOST
from kv_offload.driver_utils import check_cu, create_event, create_stream, order_after

logger = logging.getLogger(__name__)


class KvCacheSnapshotter:
    """Gathers the KV blocks of a finished context request into pinned staging memory
    so the KV cache connector can persist them."""

    def __init__(self, device_id: int, max_blocks: int, block_bytes: int):
        self._stream = create_stream()
        self._ready = create_event()
        self._block_bytes = block_bytes
        self._max_blocks = max_blocks
        self._staging = torch.empty(max_blocks * block_bytes, dtype=torch.uint8, pin_memory=True)
        attrs = driver.CUmemcpyAttributes()
        attrs.srcAccessOrder = driver.CUmemcpySrcAccessOrder(2)
        attrs.srcLocHint.type = LOC_DEVICE
        attrs.srcLocHint.id = device_id
        attrs.dstLocHint.type = LOC_HOST
        self._attrs = attrs

    def snapshot(self, dev_ptrs: List[driver.CUdeviceptr], compute_stream) -> bytes:
        n = len(dev_ptrs)
        if n > self._max_blocks:
            raise ValueError(f"snapshot of {n} blocks exceeds staging capacity {self._max_blocks}")
        base = self._staging.data_ptr()
        dsts = [driver.CUdeviceptr(base + i * self._block_bytes) for i in range(n)]
        order_after(self._ready, compute_stream, self._stream)
        # expect: KVG002
        check_cu(driver.cuMemcpyBatchAsync(dsts, dev_ptrs, [self._block_bytes] * n, n, [self._attrs], [0], 1, self._stream))
        check_cu(driver.cuStreamSynchronize(self._stream))
        logger.info("snapshot of %d blocks ready", n)
        return self._staging[: n * self._block_bytes].numpy().tobytes()
