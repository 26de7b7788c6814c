import cupy
import cupyx
import numpy as np


def alloc_pinned_block(shape: tuple[int, ...], dtype) -> np.ndarray:
    return cupyx.empty_pinned(shape, dtype=dtype)


def copy_block_to_host(dev_block: cupy.ndarray, host_block: np.ndarray,
                       stream: cupy.cuda.Stream) -> np.ndarray:
    # expect: KVG001
    return dev_block.get(stream=stream, out=host_block, blocking=False)
