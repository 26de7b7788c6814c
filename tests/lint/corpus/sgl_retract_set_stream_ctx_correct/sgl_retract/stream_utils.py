"""Stream helpers shared by the KV offloader."""

from contextlib import contextmanager

import torch


@contextmanager
def use_stream(stream: torch.cuda.Stream):
    """Make `stream` the current stream of this thread for the block, ordered behind the work
    already queued on the previous current stream; restore the previous stream afterwards."""
    prev = torch.cuda.current_stream()
    stream.wait_stream(prev)
    torch.cuda.set_stream(stream)
    try:
        yield stream
    finally:
        torch.cuda.set_stream(prev)
