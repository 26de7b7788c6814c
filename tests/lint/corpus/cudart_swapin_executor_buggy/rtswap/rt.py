"""cuda.bindings.runtime helpers."""
from cuda.bindings import runtime as cudart


def check(result):
    err = result[0]
    if err != cudart.cudaError_t.cudaSuccess:
        _, msg = cudart.cudaGetErrorString(err)
        raise RuntimeError(f"CUDA runtime error {err}: {msg}")
    return result[1] if len(result) == 2 else None


def nonblocking_stream():
    return check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def sync_event():
    return check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
