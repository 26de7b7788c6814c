"""Offload / onboard copies between the pools."""

from cuda.bindings import runtime as cudart

from trtllm_kv.cuda_utils import check


class KVCacheTransferManager:
    def __init__(self, primary, secondary):
        self.primary = primary
        self.secondary = secondary
        self.block_bytes = primary.block_bytes
        self._offload_stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        self._onboard_stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        flags = cudart.cudaEventDisableTiming
        self._engine_ready = check(cudart.cudaEventCreateWithFlags(flags))
        self._offload_done = check(cudart.cudaEventCreateWithFlags(flags))
        self._onboard_done = check(cudart.cudaEventCreateWithFlags(flags))

    def offload(self, pairs, stream):
        """pairs: (primary block, secondary block). stream: the engine's stream."""
        # secondary blocks may be recycled from an earlier offload: let it land first
        check(cudart.cudaEventSynchronize(self._offload_done))
        for primary_id, secondary_id in pairs:
            # expect: KVG001
            check(cudart.cudaMemcpyAsync(
                self.secondary.address(secondary_id),
                self.primary.address(primary_id),
                self.block_bytes,
                cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost,
                self._offload_stream,
            ))
        check(cudart.cudaEventRecord(self._offload_done, self._offload_stream))

    def onboard(self, pairs, stream):
        """pairs: (secondary block, primary block). stream: the engine's stream."""
        # a primary block freed by this step's offload is still being read by it
        check(cudart.cudaStreamWaitEvent(self._onboard_stream, self._offload_done, 0))
        for secondary_id, primary_id in pairs:
            # expect: KVG004
            check(cudart.cudaMemcpyAsync(
                self.primary.address(primary_id),
                self.secondary.address(secondary_id),
                self.block_bytes,
                cudart.cudaMemcpyKind.cudaMemcpyDefault,
                self._onboard_stream,
            ))
        check(cudart.cudaEventRecord(self._onboard_done, self._onboard_stream))
        # the forward that follows reads the onboarded blocks
        check(cudart.cudaStreamWaitEvent(stream, self._onboard_done, 0))
