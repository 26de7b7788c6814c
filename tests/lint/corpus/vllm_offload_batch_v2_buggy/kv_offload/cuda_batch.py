"""Thin helpers over cuda.bindings.driver batched copies."""

from typing import Sequence

from cuda.bindings import driver as cuda


def check(result):
    err = result[0] if isinstance(result, tuple) else result
    if err != cuda.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver call failed: {err}")
    return result[1:] if isinstance(result, tuple) and len(result) > 1 else None


def make_copy_attrs(src_order, flags) -> cuda.CUmemcpyAttributes:
    attrs = cuda.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.flags = flags
    return attrs


def batch_copy(
    dst_ptrs: Sequence[int],
    src_ptrs: Sequence[int],
    sizes: Sequence[int],
    stream_handle: int,
    src_order,
    flags,
) -> None:
    if not sizes:
        return
    attrs = make_copy_attrs(src_order, flags)
    check(
        # expect: KVG002
        cuda.cuMemcpyBatchAsync(
            [cuda.CUdeviceptr(p) for p in dst_ptrs],
            [cuda.CUdeviceptr(p) for p in src_ptrs],
            list(sizes),
            len(sizes),
            [attrs],
            [0],
            1,
            cuda.CUstream(stream_handle),
        )
    )


def new_event() -> cuda.CUevent:
    (event,) = check(cuda.cuEventCreate(cuda.CUevent_flags.CU_EVENT_DISABLE_TIMING))
    return event


def order_after(stream_handle: int, producer_handle: int, event: cuda.CUevent) -> None:
    check(cuda.cuEventRecord(event, cuda.CUstream(producer_handle)))
    check(cuda.cuStreamWaitEvent(cuda.CUstream(stream_handle), event, 0))


def event_done(event: cuda.CUevent) -> bool:
    err = cuda.cuEventQuery(event)[0]
    if err == cuda.CUresult.CUDA_ERROR_NOT_READY:
        return False
    check(err)
    return True
