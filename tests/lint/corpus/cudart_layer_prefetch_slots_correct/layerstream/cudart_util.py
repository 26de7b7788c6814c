"""Small helpers over cuda.bindings.runtime, in the style of the cuda-python samples."""
from cuda.bindings import runtime as cudart


class CudaRuntimeError(RuntimeError):
    pass


def check(result):
    """Raise on a failed runtime call; return its value(s) otherwise."""
    err = result[0]
    if err != cudart.cudaError_t.cudaSuccess:
        _, name = cudart.cudaGetErrorName(err)
        raise CudaRuntimeError(name.decode() if isinstance(name, bytes) else str(name))
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def new_stream():
    return check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def new_event():
    return check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))


def h2d_async(dst, src, stream):
    """dst: CUDA tensor, src: pinned CPU tensor of the same size."""
    nbytes = src.numel() * src.element_size()
    check(cudart.cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), nbytes,
                                 cudart.cudaMemcpyKind.cudaMemcpyHostToDevice, stream))
