from cuda.bindings import runtime as cudart

from trtllm_kv._cuda_utils import CUASSERT, create_event, create_stream
from trtllm_kv.block_pool import BlockPool, KVCacheBlock


class KVCacheTransferManager:
    """Onboards (host -> GPU) and offloads (GPU -> host) blocks on dedicated streams."""

    def __init__(self, pool: BlockPool):
        self._pool = pool
        self._onboard_stream = create_stream()
        self._offload_stream = create_stream()
        self._sync_event = create_event()
        self._onboard_done = create_event()
        self._offload_done = create_event()
        self._pending_onboard = False
        self._pending_offload = False

    def _order_after(self, stream, *upstreams) -> None:
        for upstream in upstreams:
            CUASSERT(cudart.cudaEventRecord(self._sync_event, upstream))
            CUASSERT(cudart.cudaStreamWaitEvent(stream, self._sync_event, 0))

    def offload(self, block: KVCacheBlock, offload_block: KVCacheBlock, compute_stream) -> None:
        self._order_after(self._offload_stream, compute_stream, self._onboard_stream)
        CUASSERT(cudart.cudaMemcpyAsync(self._pool.secondary_ptr(offload_block), self._pool.primary_ptr(block), self._pool.block_bytes, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, self._offload_stream))
        self._pending_offload = True

    def onboard(self, offload_block: KVCacheBlock, block: KVCacheBlock, compute_stream) -> None:
        self._order_after(self._onboard_stream, compute_stream, self._offload_stream)
        CUASSERT(cudart.cudaMemcpyAsync(self._pool.primary_ptr(block), self._pool.secondary_ptr(offload_block), self._pool.block_bytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, self._onboard_stream))
        self._pending_onboard = True

    def sync_transfers(self, compute_stream) -> None:
        """Make the compute stream wait for every transfer issued since the last call."""
        if self._pending_onboard:
            CUASSERT(cudart.cudaEventRecord(self._onboard_done, self._onboard_stream))
            CUASSERT(cudart.cudaStreamWaitEvent(compute_stream, self._onboard_done, 0))
        if self._pending_offload:
            CUASSERT(cudart.cudaEventRecord(self._offload_done, self._offload_stream))
            CUASSERT(cudart.cudaStreamWaitEvent(compute_stream, self._offload_done, 0))
        self._pending_onboard = self._pending_offload = False
