"""cuda.bindings.runtime helpers."""
from cuda.bindings import runtime as cudart

Order = cudart.cudaMemcpySrcAccessOrder


class RuntimeCallError(RuntimeError):
    pass


def ok(result):
    err = result[0] if isinstance(result, tuple) else result
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeCallError(cudart.cudaGetErrorString(err)[1])
    if isinstance(result, tuple) and len(result) > 1:
        return result[1]
    return None


def copy_attrs(order):
    attrs = cudart.cudaMemcpyAttributes()
    attrs.srcAccessOrder = order
    attrs.flags = cudart.cudaMemcpyFlags.cudaMemcpyFlagPreferOverlapWithCompute
    return attrs


def event_done(event):
    err = cudart.cudaEventQuery(event)[0]
    if err == cudart.cudaError_t.cudaErrorNotReady:
        return False
    ok((err,))
    return True
