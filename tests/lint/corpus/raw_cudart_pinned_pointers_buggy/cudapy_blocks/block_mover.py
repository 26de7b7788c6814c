"""Move fixed-size KV blocks between a device pool and a pinned host pool.

The compute stream is owned by the inference engine and passed in as a raw
``CUstream`` handle (e.g. ``torch.cuda.current_stream().cuda_stream``).
"""
import logging

from cuda.bindings import driver as cuda
from cuda.bindings import runtime as cudart

from .cuda_helpers import check, make_copy_attrs, order_after

logger = logging.getLogger(__name__)


class BlockMover:

    def __init__(self, num_gpu_blocks, num_host_blocks, block_bytes, compute_stream_handle):
        self.block_bytes = block_bytes
        self.compute_stream = cuda.CUstream(compute_stream_handle)
        self.gpu_base = check(cudart.cudaMalloc(num_gpu_blocks * block_bytes))
        self.host_base = check(cudart.cudaMallocHost(num_host_blocks * block_bytes))
        flags = cuda.CUstream_flags.CU_STREAM_NON_BLOCKING
        self.store_stream = check(cuda.cuStreamCreate(flags))
        self.load_stream = check(cuda.cuStreamCreate(flags))
        no_timing = cuda.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self.store_ready = check(cuda.cuEventCreate(no_timing))
        self.load_ready = check(cuda.cuEventCreate(no_timing))
        self.load_done = check(cuda.cuEventCreate(no_timing))
        self.store_done = check(cuda.cuEventCreate(no_timing))
        logger.info("BlockMover: %d device / %d host blocks of %d bytes", num_gpu_blocks, num_host_blocks, block_bytes)

    def _gpu(self, idx):
        return int(self.gpu_base) + idx * self.block_bytes

    def _host(self, idx):
        return int(self.host_base) + idx * self.block_bytes

    def store_block(self, gpu_idx, host_idx):
        """Copy one block to host memory (runtime API)."""
        # expect: KVG001
        check(cudart.cudaMemcpyAsync(self._host(host_idx), self._gpu(gpu_idx), self.block_bytes,
                                     cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, self.store_stream))
        check(cuda.cuEventRecord(self.store_done, self.store_stream))

    def store_blocks(self, gpu_ids, host_ids):
        """Copy many blocks to host memory with one batched driver call."""
        if not gpu_ids:
            return
        dsts = [self._host(i) for i in host_ids]
        srcs = [self._gpu(i) for i in gpu_ids]
        sizes = [self.block_bytes] * len(gpu_ids)
        order_after(self.store_stream, self.compute_stream, self.store_ready)
        attrs = make_copy_attrs()
        # expect: KVG002
        check(cuda.cuMemcpyBatchAsync(dsts, srcs, sizes, len(dsts), [attrs], [0], 1, self.store_stream))
        check(cuda.cuEventRecord(self.store_done, self.store_stream))

    def load_blocks(self, host_ids, gpu_ids):
        """Copy blocks from the pinned host pool back into device blocks."""
        if not gpu_ids:
            return
        dsts = [self._gpu(i) for i in gpu_ids]
        srcs = [self._host(i) for i in host_ids]
        sizes = [self.block_bytes] * len(gpu_ids)
        order_after(self.load_stream, self.compute_stream, self.load_ready)
        # the batch copy may read its host source out of stream order: stores into
        # the host pool must have landed before the call, not just be queued ahead
        check(cuda.cuEventSynchronize(self.store_done))
        attrs = make_copy_attrs()  # host source: any order is fine
        check(cuda.cuMemcpyBatchAsync(dsts, srcs, sizes, len(dsts), [attrs], [0], 1, self.load_stream))
        check(cuda.cuEventRecord(self.load_done, self.load_stream))
        check(cuda.cuStreamWaitEvent(self.compute_stream, self.load_done, 0))

    def wait_stores(self):
        check(cuda.cuEventSynchronize(self.store_done))

    def close(self):
        check(cuda.cuStreamSynchronize(self.store_stream))
        check(cuda.cuStreamSynchronize(self.load_stream))
        for ev in (self.store_ready, self.load_ready, self.load_done, self.store_done):
            check(cuda.cuEventDestroy(ev))
        check(cuda.cuStreamDestroy(self.store_stream))
        check(cuda.cuStreamDestroy(self.load_stream))
        check(cudart.cudaFreeHost(self.host_base))
        check(cudart.cudaFree(self.gpu_base))
