from cuda.bindings import runtime as cudart


def check(result):
    err, *rest = result
    if err != cudart.cudaError_t.cudaSuccess:
        _, msg = cudart.cudaGetErrorString(err)
        raise RuntimeError(f"CUDA runtime error {err}: {msg}")
    return rest[0] if len(rest) == 1 else (tuple(rest) or None)


def new_stream():
    return check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))


def new_event():
    return check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
