# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import Any

import torch
from cuda.bindings import driver

from .constants import COPY_STREAM_FLAGS, MARKER_EVENT_FLAGS, SNAPSHOT_COPY_FLAGS, SNAPSHOT_SRC_ACCESS_ORDER


def check(result: Any) -> Any:
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_copy_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(COPY_STREAM_FLAGS))


def create_marker_event() -> driver.CUevent:
    return check(driver.cuEventCreate(MARKER_EVENT_FLAGS))


def as_cu_stream(stream: torch.cuda.Stream) -> driver.CUstream:
    return driver.CUstream(stream.cuda_stream)


def snapshot_attributes(device_ordinal: int) -> driver.CUmemcpyAttributes:
    attr = driver.CUmemcpyAttributes()
    attr.srcAccessOrder = SNAPSHOT_SRC_ACCESS_ORDER
    attr.srcLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    attr.srcLocHint.id = device_ordinal
    attr.dstLocHint.type = driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST
    attr.dstLocHint.id = 0
    attr.flags = SNAPSHOT_COPY_FLAGS
    return attr
