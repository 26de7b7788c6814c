# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import torch
from cuda.bindings import driver


def check_cuda(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def torch_stream_handle(stream: torch.cuda.Stream) -> driver.CUstream:
    return driver.CUstream(stream.cuda_stream)


def create_stream() -> driver.CUstream:
    return check_cuda(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


def create_event() -> driver.CUevent:
    return check_cuda(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def order_after(waiter: driver.CUstream, producer: driver.CUstream, event: driver.CUevent) -> None:
    check_cuda(driver.cuEventRecord(event, producer))
    check_cuda(driver.cuStreamWaitEvent(waiter, event, 0))


def device_location(ordinal: int) -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    loc.id = ordinal
    return loc


def host_location() -> driver.CUmemLocation:
    loc = driver.CUmemLocation()
    loc.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    loc.id = 0
    return loc
