# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
"""Thin checked wrappers over cuda.bindings.runtime used by the activation stash."""
from cuda.bindings import runtime


def check_cuda(result):
    err = result[0]
    if err != runtime.cudaError_t.cudaSuccess:
        _, name = runtime.cudaGetErrorName(err)
        raise RuntimeError(f"CUDA runtime error: {name.decode() if isinstance(name, bytes) else name}")
    return result[1] if len(result) == 2 else result[1:]


def create_stream(priority: int = 0):
    return check_cuda(runtime.cudaStreamCreateWithPriority(runtime.cudaStreamNonBlocking, priority))


def create_event():
    return check_cuda(runtime.cudaEventCreateWithFlags(runtime.cudaEventDisableTiming))


def record_event(event, stream) -> None:
    check_cuda(runtime.cudaEventRecord(event, stream))


def stream_wait_event(stream, event) -> None:
    check_cuda(runtime.cudaStreamWaitEvent(stream, event, 0))


def event_done(event) -> bool:
    (err,) = runtime.cudaEventQuery(event)
    if err == runtime.cudaError_t.cudaErrorNotReady:
        return False
    check_cuda((err, None))
    return True
