from typing import Tuple

import cupy
import cupyx
import numpy as np


def pinned_empty(shape: Tuple[int, ...], dtype) -> np.ndarray:
    return cupyx.empty_pinned(shape, dtype=dtype)


def pinned_zeros(shape: Tuple[int, ...], dtype) -> np.ndarray:
    return cupyx.zeros_pinned(shape, dtype=dtype)


def fetch_to_host(device_array: cupy.ndarray, host_out: np.ndarray, stream: cupy.cuda.Stream) -> np.ndarray:
    """Queues a device-to-host copy into `host_out` on `stream` and returns without waiting."""
    return cupy.asnumpy(device_array, stream=stream, out=host_out, blocking=False)
