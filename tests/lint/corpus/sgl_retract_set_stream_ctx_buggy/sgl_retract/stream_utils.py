"""Stream helpers shared by the KV offloader."""

from contextlib import contextmanager

import torch


@contextmanager
def use_stream(stream: torch.cuda.Stream):
    """Make `stream` the current stream of this thread for the block; restore it afterwards."""
    prev = torch.cuda.current_stream()
    torch.cuda.set_stream(stream)
    try:
        yield stream
    finally:
        torch.cuda.set_stream(prev)
