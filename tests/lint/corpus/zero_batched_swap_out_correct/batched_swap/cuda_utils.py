# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Thin wrappers over cuda.bindings.driver used by the swapper."""

from typing import Any, Tuple

from cuda.bindings import driver


class CudaDriverError(RuntimeError):
    pass


def check(result: Tuple[Any, ...]) -> Any:
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaDriverError(f"CUDA driver call failed: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def create_swap_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))


def order_after(waiter: driver.CUstream, producer: driver.CUstream, event: driver.CUevent) -> None:
    check(driver.cuEventRecord(event, producer))
    check(driver.cuStreamWaitEvent(waiter, event, 0))
