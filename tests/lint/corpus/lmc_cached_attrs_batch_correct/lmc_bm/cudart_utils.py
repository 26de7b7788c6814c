from cuda.bindings import runtime as cudart


def check(result):
    err, *rest = result
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime call failed: {err}")
    return rest


def location(kind, ordinal: int = 0):
    loc = cudart.cudaMemLocation()
    loc.type = kind
    loc.id = ordinal
    return loc
