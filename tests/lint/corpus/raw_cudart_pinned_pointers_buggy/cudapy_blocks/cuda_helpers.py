"""Thin helpers over cuda-python (cuda.bindings) used by the block mover."""
from cuda.bindings import driver as cuda
from cuda.bindings import runtime as cudart

SRC_ORDER_STREAM = cuda.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
SRC_ORDER_ANY = cuda.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY


class CudaError(RuntimeError):
    pass


def _error_name(err):
    if isinstance(err, cuda.CUresult):
        _, name = cuda.cuGetErrorName(err)
        return name.decode() if name else str(err)
    if isinstance(err, cudart.cudaError_t):
        _, name = cudart.cudaGetErrorName(err)
        return name.decode() if isinstance(name, bytes) else str(name)
    return str(err)


def check(result):
    """Unwrap a cuda-python ``(err, *values)`` tuple, raising on error."""
    err, *values = result
    if err not in (cuda.CUresult.CUDA_SUCCESS, cudart.cudaError_t.cudaSuccess):
        raise CudaError(f"CUDA call failed: {_error_name(err)}")
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def make_copy_attrs(src_order=SRC_ORDER_ANY):
    """Attributes for cuMemcpyBatchAsync; ANY lets the driver overlap the copy best."""
    attrs = cuda.CUmemcpyAttributes()
    attrs.srcAccessOrder = src_order
    attrs.flags = cuda.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
    return attrs


def order_after(waiter, producer, event):
    """Make ``waiter`` wait for all work currently queued on ``producer``."""
    check(cuda.cuEventRecord(event, producer))
    check(cuda.cuStreamWaitEvent(waiter, event, 0))
