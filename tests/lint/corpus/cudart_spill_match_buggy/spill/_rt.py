from cuda.bindings import runtime as cudart


class CudaRuntimeError(RuntimeError):
    pass


def check(result):
    """Unwrap a cuda-python runtime result tuple."""
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != cudart.cudaError_t.cudaSuccess:
        _, msg = cudart.cudaGetErrorString(err)
        raise CudaRuntimeError(msg.decode() if isinstance(msg, bytes) else str(msg))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)
