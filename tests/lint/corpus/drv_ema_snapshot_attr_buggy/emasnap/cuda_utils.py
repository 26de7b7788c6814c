"""cuda.bindings helpers (after the checkCudaErrors helper of NVIDIA's cuda-python samples)."""
from cuda.bindings import driver


def _error_string(err):
    _, name = driver.cuGetErrorName(err)
    return name.decode() if name else str(err)


def check(result):
    err = result[0]
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"CUDA driver error {_error_string(err)}")
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


def new_stream():
    return check(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING.value))


def new_event():
    return check(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))
