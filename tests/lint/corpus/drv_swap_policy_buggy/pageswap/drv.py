"""Thin helpers over cuda.bindings.driver."""
from cuda.bindings import driver


class CudaDriverError(RuntimeError):
    pass


def ok(result):
    """Unwrap ``(CUresult, *values)``: raise on error, return None, the value, or a tuple."""
    err, *values = result
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise CudaDriverError(name.decode() if name else repr(err))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def new_stream():
    return ok(driver.cuStreamCreate(driver.CUstream_flags.CU_STREAM_NON_BLOCKING))


def new_event():
    return ok(driver.cuEventCreate(driver.CUevent_flags.CU_EVENT_DISABLE_TIMING))
