"""Stream-order helpers that take cupy streams and events and act through their raw
handles (``.ptr``) with the cuda-python runtime."""

from cuda.bindings import runtime as cudart


def wait_for(stream, event):
    """Make ``stream`` (a cupy Stream) wait until ``event`` (a cupy Event) has completed."""
    (err,) = cudart.cudaStreamWaitEvent(stream.ptr, event.ptr, 0)
    if err != cudart.cudaError_t.cudaSuccess:
        raise RuntimeError(f"cudaStreamWaitEvent failed: {err}")
