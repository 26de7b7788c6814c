import numpy as np
from numba import cuda


def make_streams():
    """(compute, copy) streams; kernels never run on the copy stream."""
    return cuda.stream(), cuda.stream()


def stage_to_host(d_arr, pinned: np.ndarray, stream) -> None:
    d_arr.copy_to_host(pinned, stream=stream)
