"""Thin wrappers over cuda.bindings.runtime used by the balancer."""
import ctypes
from typing import Any

import numpy as np
from cuda.bindings import runtime as cudart

D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost


def check(result: Any) -> Any:
    err, *rest = result
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime error: {cudart.cudaGetErrorName(err)[1]}")
    return rest[0] if len(rest) == 1 else None


def new_stream() -> cudart.cudaStream_t:
    return check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def new_event() -> cudart.cudaEvent_t:
    return check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))


def as_stream(handle: int) -> cudart.cudaStream_t:
    return cudart.cudaStream_t(handle)


def record(event: cudart.cudaEvent_t, stream: cudart.cudaStream_t) -> None:
    check(cudart.cudaEventRecord(event, stream))


def stream_wait(stream: cudart.cudaStream_t, event: cudart.cudaEvent_t) -> None:
    check(cudart.cudaStreamWaitEvent(stream, event, 0))


def event_sync(event: cudart.cudaEvent_t) -> None:
    check(cudart.cudaEventSynchronize(event))


def pinned_array(shape: tuple[int, ...], dtype) -> tuple[np.ndarray, int]:
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    ptr = int(check(cudart.cudaMallocHost(nbytes)))
    raw = (ctypes.c_byte * nbytes).from_address(ptr)
    return np.frombuffer(raw, dtype=dtype).reshape(shape), ptr
