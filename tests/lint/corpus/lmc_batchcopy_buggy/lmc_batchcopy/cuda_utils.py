# SPDX-License-Identifier: Apache-2.0
# Standard
from typing import Any, Tuple

# Third Party
from cuda.bindings import driver


def check(result: Tuple[Any, ...]) -> Any:
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver call failed: {name!r}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def create_stream() -> driver.CUstream:
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


def create_event() -> driver.CUevent:
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def as_stream(handle: int) -> driver.CUstream:
    """Wrap a raw stream handle, e.g. ``torch.cuda.current_stream().cuda_stream``."""
    return driver.CUstream(handle)
