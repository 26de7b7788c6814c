"""Moves blocks between the pools in the shape of TensorRT-LLM's KVCacheTransferManager: offloads
(primary -> secondary) and onboards (secondary -> primary) run on their own streams; an
onboard first waits for the offloads queued so far (a released block may still be being read
by its offload); before the next forward the runtime stream waits for both (sync_transfers).
Both directions are ordered behind the runtime stream: an offload reads a block the forward
wrote, and an onboard fills a block just taken from the free list, which a forward still
queued on the runtime stream may be reading (the overlap executor schedules the next iteration
before the previous one has run)."""

from cuda.bindings import runtime as cudart

from trt_kv.cuda_utils import CUASSERT, create_event, create_nonblocking_stream
from trt_kv.pools import BlockPool


class KVCacheTransferManager:
    def __init__(self, primary: BlockPool, secondary: BlockPool):
        self.primary = primary
        self.secondary = secondary
        self.onboard_stream = create_nonblocking_stream()
        self.offload_stream = create_nonblocking_stream()
        self.onboard_done = create_event()
        self.offload_done = create_event()
        self.offloads_queued = create_event()
        self.compute_ready = create_event()

    def offload(self, primary_block: int, secondary_block: int, runtime_stream) -> None:
        CUASSERT(cudart.cudaEventRecord(self.compute_ready, runtime_stream))
        CUASSERT(cudart.cudaStreamWaitEvent(self.offload_stream, self.compute_ready, 0))
        CUASSERT(cudart.cudaMemcpyAsync(
            self.secondary.block_ptr(secondary_block), self.primary.block_ptr(primary_block),
            self.primary.block_bytes, cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost, self.offload_stream))

    def onboard(self, secondary_block: int, primary_block: int, runtime_stream) -> None:
        CUASSERT(cudart.cudaEventRecord(self.compute_ready, runtime_stream))
        CUASSERT(cudart.cudaStreamWaitEvent(self.onboard_stream, self.compute_ready, 0))
        CUASSERT(cudart.cudaEventRecord(self.offloads_queued, self.offload_stream))
        CUASSERT(cudart.cudaStreamWaitEvent(self.onboard_stream, self.offloads_queued, 0))
        CUASSERT(cudart.cudaMemcpyAsync(
            self.primary.block_ptr(primary_block), self.secondary.block_ptr(secondary_block),
            self.primary.block_bytes, cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, self.onboard_stream))

    def sync_transfers(self, runtime_stream) -> None:
        CUASSERT(cudart.cudaEventRecord(self.onboard_done, self.onboard_stream))
        CUASSERT(cudart.cudaEventRecord(self.offload_done, self.offload_stream))
        CUASSERT(cudart.cudaStreamWaitEvent(runtime_stream, self.onboard_done, 0))
        CUASSERT(cudart.cudaStreamWaitEvent(runtime_stream, self.offload_done, 0))
