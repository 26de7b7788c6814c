from cuda.bindings import driver


def check(result):
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error: {err}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)
