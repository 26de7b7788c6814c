"""Stream helpers shared by the swap paths."""
import contextlib
from typing import Iterator

import torch
from numba import cuda


@contextlib.contextmanager
def numba_side_stream(side: torch.cuda.Stream) -> Iterator[object]:
    """Yields a numba stream over `side` for the duration of the block."""
    yield cuda.external_stream(side.cuda_stream)
