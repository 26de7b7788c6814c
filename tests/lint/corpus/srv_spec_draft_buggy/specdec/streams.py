"""Stream helpers shared by the speculative-decoding workers."""

from contextlib import contextmanager

import torch


@contextmanager
def use_stream(stream):
    """Make ``stream`` current for the block, restoring the previous one after."""
    previous = torch.cuda.current_stream()
    torch.cuda.set_stream(stream)
    try:
        yield stream
    finally:
        torch.cuda.set_stream(previous)
