import cupy
import cupyx
import numpy as np


def pinned_staging(num_elems: int, dtype: type) -> np.ndarray:
    return cupyx.empty_pinned((num_elems,), dtype=dtype)


def staging_view(staging: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    if n > staging.size:
        raise ValueError(f"record of {n} elements does not fit staging buffer of {staging.size}")
    return staging[:n].reshape(shape)


def drain_current_stream() -> None:
    cupy.cuda.get_current_stream().synchronize()
