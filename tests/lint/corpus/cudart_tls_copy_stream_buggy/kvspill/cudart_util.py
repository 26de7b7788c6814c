"""cuda.bindings.runtime helpers shared by the spill workers."""
import threading

from cuda.bindings import runtime as cudart


def check(result):
    err = result[0]
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA error {cudart.cudaGetErrorName(err)[1]}")
    if len(result) == 1:
        return None
    if len(result) == 2:
        return result[1]
    return result[1:]


_tls = threading.local()


def thread_copy_stream():
    """The calling thread's own non-blocking copy stream, created on first use, so that
    workers never serialise their transfers behind one another."""
    stream = getattr(_tls, "copy_stream", None)
    if stream is None:
        stream = check(cudart.cudaStreamCreateWithFlags(cudart.cudaStreamNonBlocking))
        _tls.copy_stream = stream
    return stream


def new_event():
    return check(cudart.cudaEventCreateWithFlags(cudart.cudaEventDisableTiming))
