# SPDX-License-Identifier: Apache-2.0
import ctypes
from typing import Sequence

from cpu_kv_offload import cudart
from cpu_kv_offload.config import CPUOffloadConfig
from vllm.logger import init_logger

logger = init_logger(__name__)


class CudaRTBlockMover:
    """Issues block copies on a private non-blocking stream via raw libcudart."""

    def __init__(self, config: CPUOffloadConfig, device_id: int):
        self._lib = cudart.load_cudart(config.cudart_path)
        self._device_id = device_id
        self._stream = cudart.cudaStream_t()
        cudart.check(self._lib, self._lib.cudaStreamCreateWithFlags(
            ctypes.byref(self._stream), cudart.cudaStreamNonBlocking))
        self._src_access_order = config.batch_src_access_order
        self._use_batch = (config.use_batch_memcpy and cudart.runtime_version(self._lib)
                           >= config.min_batch_runtime_version)
        logger.info("CPU offload block mover: batched memcpy=%s", self._use_batch)

    def new_event(self) -> cudart.cudaEvent_t:
        event = cudart.cudaEvent_t()
        cudart.check(self._lib, self._lib.cudaEventCreateWithFlags(
            ctypes.byref(event), cudart.cudaEventDisableTiming))
        return event

    def _after(self, event: cudart.cudaEvent_t, stream_ptr: int) -> None:
        cudart.check(self._lib, self._lib.cudaEventRecord(event, stream_ptr))
        cudart.check(self._lib, self._lib.cudaStreamWaitEvent(self._stream, event, 0))

    def _store_attrs(self) -> cudart.cudaMemcpyAttributes:
        attrs = cudart.cudaMemcpyAttributes()
        attrs.srcAccessOrder = self._src_access_order
        attrs.srcLocHint.type = cudart.cudaMemLocationTypeDevice
        attrs.srcLocHint.id = self._device_id
        attrs.dstLocHint.type = cudart.cudaMemLocationTypeHost
        return attrs

    def store(self, dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int],
              compute_stream: int, ready: cudart.cudaEvent_t,
              done: cudart.cudaEvent_t) -> None:
        lib, n = self._lib, len(sizes)
        if self._use_batch:
            self._after(ready, compute_stream)
            dst_arr = (ctypes.c_void_p * n)(*dsts)
            src_arr = (ctypes.c_void_p * n)(*srcs)
            size_arr = (ctypes.c_size_t * n)(*sizes)
            attrs = (cudart.cudaMemcpyAttributes * 1)(self._store_attrs())
            attr_idx = (ctypes.c_size_t * 1)(0)
            fail_idx = ctypes.c_size_t()
            # expect: KVG002
            cudart.check(lib, lib.cudaMemcpyBatchAsync(dst_arr, src_arr, size_arr, n, attrs, attr_idx, 1, ctypes.byref(fail_idx), self._stream))
        else:
            for dst, src, nbytes in zip(dsts, srcs, sizes):
                # expect: KVG001
                cudart.check(lib, lib.cudaMemcpyAsync(dst, src, nbytes, cudart.cudaMemcpyDeviceToHost, self._stream))
        cudart.check(lib, lib.cudaEventRecord(done, self._stream))

    def load(self, dsts: Sequence[int], srcs: Sequence[int], sizes: Sequence[int],
             compute_stream: int, ready: cudart.cudaEvent_t,
             done: cudart.cudaEvent_t) -> None:
        lib = self._lib
        self._after(ready, compute_stream)
        for dst, src, nbytes in zip(dsts, srcs, sizes):
            cudart.check(lib, lib.cudaMemcpyAsync(dst, src, nbytes, cudart.cudaMemcpyHostToDevice, self._stream))
        cudart.check(lib, lib.cudaEventRecord(done, self._stream))

    def query(self, event: cudart.cudaEvent_t) -> bool:
        result = self._lib.cudaEventQuery(event)
        if result == cudart.cudaErrorNotReady:
            return False
        cudart.check(self._lib, result)
        return True
