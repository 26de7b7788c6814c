from collections.abc import Iterable

import cupy
import numpy as np


def store_blocks(
    gpu_cache: cupy.ndarray,
    pairs: Iterable[tuple[int, int]],
    host_cache: np.ndarray,
    stream: cupy.cuda.Stream,
) -> None:
    for block_id, slot in pairs:
        cupy.asnumpy(gpu_cache[block_id], stream=stream,
                     out=host_cache[slot], blocking=False)


def load_blocks(
    gpu_cache: cupy.ndarray,
    pairs: Iterable[tuple[int, int]],
    staging: np.ndarray,
    stream: cupy.cuda.Stream,
) -> None:
    for block_id, slot in pairs:
        gpu_cache[block_id].set(staging[slot], stream=stream)
