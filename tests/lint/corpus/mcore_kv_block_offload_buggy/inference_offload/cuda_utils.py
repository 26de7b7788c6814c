# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import ctypes
import ctypes.util

from cuda.bindings import driver


def check_cu(result):
    """Unwraps a cuda.bindings result tuple, raising on error."""
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def make_batch_attrs(src_order, src_is_device: bool, device_id: int) -> driver.CUmemcpyAttributes:
    device_loc = driver.CUmemLocation()
    device_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    device_loc.id = device_id
    host_loc = driver.CUmemLocation()
    host_loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    host_loc.id = 0

    attrs = driver.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.srcLocHint = device_loc if src_is_device else host_loc
    attrs.dstLocHint = host_loc if src_is_device else device_loc
    attrs.flags = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


class StreamFence:
    """Orders `consumer` after everything already enqueued on `producer`."""

    def __init__(self):
        self.event = check_cu(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))

    def order(self, consumer, producer) -> None:
        check_cu(driver.cuEventRecord(self.event, producer))
        check_cu(driver.cuStreamWaitEvent(consumer, self.event, 0))


class _CudaRuntime:
    """Thin ctypes binding for the few runtime calls used on the metadata path."""

    def __init__(self):
        self._lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
        self._lib.cudaMemcpyAsync.argtypes = [
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p
        ]
        self._lib.cudaStreamSynchronize.argtypes = [ctypes.c_void_p]

    def memcpy_async(self, dst: int, src: int, nbytes: int, kind: int, stream: int) -> None:
        rc = self._lib.cudaMemcpyAsync(dst, src, nbytes, kind, stream)
        if rc != 0:
            raise RuntimeError(f"cudaMemcpyAsync failed: {rc}")

    def stream_synchronize(self, stream: int) -> None:
        rc = self._lib.cudaStreamSynchronize(stream)
        if rc != 0:
            raise RuntimeError(f"cudaStreamSynchronize failed: {rc}")


cudart = _CudaRuntime()
