"""Stream helpers shared by the swap paths."""
import contextlib
from typing import Iterator

import torch
from numba import cuda


@contextlib.contextmanager
def numba_side_stream(side: torch.cuda.Stream) -> Iterator[object]:
    """Yields a numba stream over `side` for the duration of the block, ordered behind
    the work torch has queued so far on the calling thread's current stream."""
    side.wait_stream(torch.cuda.current_stream())
    yield cuda.external_stream(side.cuda_stream)
