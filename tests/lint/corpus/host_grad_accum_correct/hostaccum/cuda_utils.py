"""Thin helpers around cuda.bindings.driver."""
from __future__ import annotations

import torch
from cuda.bindings import driver


def checkCudaErrors(result):
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error {int(err)} ({name.decode() if name else '?'})")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def torch_stream_handle(stream: torch.cuda.Stream) -> driver.CUstream:
    return driver.CUstream(stream.cuda_stream)


def create_stream() -> driver.CUstream:
    return checkCudaErrors(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


def create_event() -> driver.CUevent:
    return checkCudaErrors(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))
