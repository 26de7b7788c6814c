# SPDX-License-Identifier: Apache-2.0
import ctypes
import ctypes.util
import functools

from cuda.bindings import driver

from batchoff._cuconst import BATCH_MEMCPY_MIN_DRIVER

_cudart = None


def check(err, what: str) -> None:
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"{what} failed: {err}")


@functools.cache
def has_batch_memcpy() -> bool:
    err, version = driver.cuDriverGetVersion()
    check(err, "cuDriverGetVersion")
    return version >= BATCH_MEMCPY_MIN_DRIVER


def _libcudart():
    global _cudart
    if _cudart is None:
        lib = ctypes.CDLL(ctypes.util.find_library("cudart") or "libcudart.so")
        lib.cudaMemcpyAsync.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
        lib.cudaMemcpyAsync.restype = ctypes.c_int
        _cudart = lib
    return _cudart


def memcpy_async(dst: int, src: int, nbytes: int, kind: int, stream: driver.CUstream) -> None:
    rc = _libcudart().cudaMemcpyAsync(dst, src, nbytes, kind, int(stream))
    if rc != 0:
        raise RuntimeError(f"cudaMemcpyAsync failed with cudaError {rc}")


def create_stream() -> driver.CUstream:
    err, stream = driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING)
    check(err, "cuStreamCreate")
    return stream


def record(stream: driver.CUstream) -> driver.CUevent:
    err, event = driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING)
    check(err, "cuEventCreate")
    (err,) = driver.cuEventRecord(event, stream)
    check(err, "cuEventRecord")
    return event


def fence(waiter: driver.CUstream, producer: driver.CUstream) -> None:
    event = record(producer)
    (err,) = driver.cuStreamWaitEvent(waiter, event, 0)
    check(err, "cuStreamWaitEvent")
    driver.cuEventDestroy(event)


def query(event: driver.CUevent) -> bool:
    (err,) = driver.cuEventQuery(event)
    if err == driver.CUresult.CUDA_ERROR_NOT_READY:
        return False
    check(err, "cuEventQuery")
    return True


def synchronize(event: driver.CUevent) -> None:
    (err,) = driver.cuEventSynchronize(event)
    check(err, "cuEventSynchronize")
    driver.cuEventDestroy(event)
