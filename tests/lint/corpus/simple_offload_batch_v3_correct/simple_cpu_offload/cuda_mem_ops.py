"""Thin wrapper over cuMemcpyBatchAsync (cuda-python driver bindings)."""

from collections.abc import Sequence

from cuda.bindings import driver as drv

from .constants import MAX_DESCRIPTORS_PER_CALL


def make_memcpy_attrs(src_access_order: int, flags: int) -> "drv.CUmemcpyAttributes":
    attrs = drv.CUmemcpyAttributes()
    attrs.srcAccessOrder = drv.CUmemcpySrcAccessOrder(src_access_order)
    attrs.flags = flags
    return attrs


def batch_memcpy_async(
    dsts: Sequence[int],
    srcs: Sequence[int],
    sizes: Sequence[int],
    attrs: "drv.CUmemcpyAttributes",
    stream_handle: int,
) -> None:
    count = len(sizes)
    for start in range(0, count, MAX_DESCRIPTORS_PER_CALL):
        end = min(start + MAX_DESCRIPTORS_PER_CALL, count)
        result = drv.cuMemcpyBatchAsync(
            [drv.CUdeviceptr(p) for p in dsts[start:end]],
            [drv.CUdeviceptr(p) for p in srcs[start:end]],
            list(sizes[start:end]),
            end - start,
            [attrs],
            [0],
            1,
            drv.CUstream(stream_handle),
        )
        err = result[0]
        if err != drv.CUresult.CUDA_SUCCESS:
            _, msg = drv.cuGetErrorString(err)
            raise RuntimeError(f"cuMemcpyBatchAsync failed: {msg.decode() if msg else err}")
