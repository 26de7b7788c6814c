from __future__ import annotations

from cuda.bindings import runtime as cudart

D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost
H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice


def check(result):
    err = result[0]
    if err != cudart.cudaError_t.cudaSuccess:
        _, name = cudart.cudaGetErrorName(err)
        raise RuntimeError(f"CUDA runtime call failed: {name}")
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else result[1:]


def create_stream():
    return check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def create_event():
    return check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
