"""A thin cuda-python runtime wrapper: every call returns (error, *values)."""

from cuda.bindings import runtime as cudart


def rt(result):
    err, *values = result
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime call failed: {err}")
    return values[0] if values else None
