from typing import Any

from cuda.bindings import driver as cu
from cuda.bindings import runtime as cudart


def CUASSERT(result) -> Any:
    err = result[0]
    ok = (cu.CUresult.CUDA_SUCCESS, cudart.cudaError_t.cudaSuccess)
    if err not in ok:
        raise RuntimeError(f"CUDA call failed: {err}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def new_transfer_stream() -> cu.CUstream:
    return CUASSERT(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING))


def new_event() -> cu.CUevent:
    return CUASSERT(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))


def order_after(waiter: cu.CUstream, producer: cu.CUstream, event: cu.CUevent) -> None:
    CUASSERT(cu.cuEventRecord(event, producer))
    CUASSERT(cu.cuStreamWaitEvent(waiter, event, 0))
