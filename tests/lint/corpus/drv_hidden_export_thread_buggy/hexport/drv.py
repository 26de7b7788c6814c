from cuda.bindings import driver as cu


class DriverError(RuntimeError):
    pass


def ok(result):
    err, *rest = result
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise DriverError(name.decode() if name else repr(err))
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


def new_event():
    return ok(cu.cuEventCreate(cu.CUevent_flags.CU_EVENT_DISABLE_TIMING))
