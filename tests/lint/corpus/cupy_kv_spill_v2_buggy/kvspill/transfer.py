"""Device-to-host helpers."""

import cupy
import numpy


def copy_to_host_async(
    dev_arr: cupy.ndarray, host_out: numpy.ndarray, stream: cupy.cuda.Stream
) -> cupy.cuda.Event:
    """Enqueue dev_arr -> host_out on stream; returns an event recorded after it."""
    dev_arr.get(stream=stream, out=host_out, blocking=False)
    done = cupy.cuda.Event(disable_timing=True)
    done.record(stream)
    return done
