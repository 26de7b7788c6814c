"""Thin checked wrappers over cuda-python's driver bindings."""

from cuda.bindings import driver as cu


class CudaDriverError(RuntimeError):
    pass


def check(result):
    err, *values = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise CudaDriverError(name.decode() if name else repr(err))
    if not values:
        return None
    return values[0] if len(values) == 1 else tuple(values)


def new_stream():
    return check(cu.cuStreamCreate(cu.CUstream_flags.CU_STREAM_NON_BLOCKING.value))


def new_event():
    return check(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING.value))


def record(event, stream):
    check(cu.cuEventRecord(event, stream))


def wait(stream, event):
    check(cu.cuStreamWaitEvent(stream, event, 0))
