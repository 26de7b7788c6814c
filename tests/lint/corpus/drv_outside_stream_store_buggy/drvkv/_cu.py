"""cuda.bindings.driver glue."""
from cuda.bindings import driver as cu


class CUDADriverError(RuntimeError):
    def __init__(self, err):
        _, name = cu.cuGetErrorName(err)
        super().__init__(name.decode() if name else repr(err))
        self.err = err


def call(fn, *args):
    """Run a driver call, raise on failure, return its single value (or None)."""
    ret = fn(*args)
    err = ret[0]
    if err != cu.CUresult.CUDA_SUCCESS:
        raise CUDADriverError(err)
    return ret[1] if len(ret) > 1 else None
