"""Unwrapping cuda-python results."""

from cuda.bindings import runtime as cudart


def check(result):
    err, *rest = result
    if err != cudart.cudaError_t.cudaSuccess:
        _, name = cudart.cudaGetErrorName(err)
        raise RuntimeError(f"CUDA runtime call failed: {name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def engine_stream():
    import torch

    return cudart.cudaStream_t(torch.cuda.current_stream().cuda_stream)
