# SPDX-License-Identifier: Apache-2.0
"""Block transfers between the pools with the CUDA runtime's batched copy."""

import torch
from cuda.bindings import runtime as cudart


def CUASSERT(cuda_ret):
    err = cuda_ret[0]
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA ERROR: {err}, error code reference: "
                           "https://nvidia.github.io/cuda-python/module/cudart.html#cuda.cudart.cudaError_t")
    if len(cuda_ret) > 1:
        return cuda_ret[1]
    return None


class KVCacheTransferManager:

    def __init__(self, config, block_bytes):
        self.config = config
        self.block_bytes = block_bytes
        self._stream = CUASSERT(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        flags = cudart.cudaEventDisableTiming
        self._engine_ready = CUASSERT(cudart.cudaEventCreateWithFlags(flags))
        self._transfer_done = CUASSERT(cudart.cudaEventCreateWithFlags(flags))

    @property
    def _offload_src_order(self):
        # the transfer stream waits on the engine's event before every batch, so the copy
        # engine may pick the device blocks up as early as the driver likes
        if self.config.prefer_early_copy_source:
            return cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderAny
        return cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream

    def _attrs(self, src_order):
        attrs = cudart.cudaMemcpyAttributes()
        attrs.srcAccessOrder = src_order
        attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
        return attrs

    def _after_engine(self):
        engine_stream = torch.cuda.current_stream().cuda_stream
        CUASSERT(cudart.cudaEventRecord(self._engine_ready, engine_stream))
        CUASSERT(cudart.cudaStreamWaitEvent(self._stream, self._engine_ready, 0))

    def _engine_waits_transfer(self):
        engine_stream = torch.cuda.current_stream().cuda_stream
        CUASSERT(cudart.cudaStreamWaitEvent(engine_stream, self._transfer_done, 0))

    def _batch_copy(self, dsts, srcs, attrs):
        count = len(dsts)
        sizes = [self.block_bytes] * count
        # expect: KVG002
        CUASSERT(cudart.cudaMemcpyBatchAsync(dsts, srcs, sizes, count, [attrs], [0], 1, self._stream))

    def offload(self, primary_ptrs, secondary_ptrs):
        """Device blocks -> pinned host blocks."""
        self._after_engine()
        self._batch_copy(secondary_ptrs, primary_ptrs, self._attrs(self._offload_src_order))
        CUASSERT(cudart.cudaEventRecord(self._transfer_done, self._stream))
        # the evicted blocks go to new owners whose forward overwrites them
        self._engine_waits_transfer()

    def onboard(self, secondary_ptrs, primary_ptrs):
        """Pinned host blocks -> device blocks; the engine's next forward reads them."""
        self._after_engine()
        stream_order = cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream
        self._batch_copy(primary_ptrs, secondary_ptrs, self._attrs(stream_order))
        CUASSERT(cudart.cudaEventRecord(self._transfer_done, self._stream))
        self._engine_waits_transfer()
