"""Copies between the pools on a transfer stream of their own. The engine stream is given as a
raw ``cudaStream_t`` handle, as the executor passes it to every resource manager."""

from typing import List, Tuple

from cuda.bindings import runtime as cudart

from .cuda_utils import CUASSERT

BlockCopy = Tuple[int, int, int]  # (dst address, src address, bytes)


class BaseTransferManager:

    def __init__(self, engine_stream: int):
        self.engine_stream = engine_stream
        self.transfer_stream = CUASSERT(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        flags = cudart.cudaEventDisableTiming
        self._engine_event = CUASSERT(cudart.cudaEventCreateWithFlags(flags))
        self._transfer_event = CUASSERT(cudart.cudaEventCreateWithFlags(flags))

    def wait_for_engine(self) -> None:
        """Order the transfer stream after everything queued on the engine stream so far."""
        CUASSERT(cudart.cudaEventRecord(self._engine_event, self.engine_stream))
        CUASSERT(cudart.cudaStreamWaitEvent(self.transfer_stream, self._engine_event, 0))

    def sync_transfers(self) -> None:
        """Order the engine stream after every transfer queued so far."""
        CUASSERT(cudart.cudaEventRecord(self._transfer_event, self.transfer_stream))
        CUASSERT(cudart.cudaStreamWaitEvent(self.engine_stream, self._transfer_event, 0))


class KVCacheTransferManager(BaseTransferManager):

    def offload(self, copies: List[BlockCopy]) -> None:
        """Primary (device) blocks -> secondary (host) blocks. Call wait_for_engine() first:
        the engine may still be writing the victims."""
        kind = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
        for dst, src, nbytes in copies:
            CUASSERT(cudart.cudaMemcpyAsync(dst, src, nbytes, kind, self.transfer_stream))

    def onboard(self, copies: List[BlockCopy]) -> None:
        """Secondary (host) blocks -> primary (device) blocks. Call wait_for_engine() first:
        a primary block taken from the free list may still be read by a queued forward."""
        kind = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
        for dst, src, nbytes in copies:
            CUASSERT(cudart.cudaMemcpyAsync(dst, src, nbytes, kind, self.transfer_stream))
