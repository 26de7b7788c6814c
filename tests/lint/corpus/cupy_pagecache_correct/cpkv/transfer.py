from collections.abc import Sequence

import cupy
import numpy as np


def pages_to_host(
    gpu_pages: cupy.ndarray,
    page_ids: Sequence[int],
    host_pages: np.ndarray,
    host_slots: Sequence[int],
    stream: cupy.cuda.Stream,
) -> int:
    nbytes = 0
    for pid, slot in zip(page_ids, host_slots):
        gpu_pages[pid].get(stream=stream, out=host_pages[slot], blocking=False)
        nbytes += host_pages[slot].nbytes
    return nbytes

