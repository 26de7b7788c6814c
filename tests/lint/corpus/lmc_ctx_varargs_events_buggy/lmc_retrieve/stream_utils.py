"""Small helpers around CUDA streams shared by the GPU connectors."""

from contextlib import contextmanager

import torch


@contextmanager
def on_stream(stream: torch.cuda.Stream, *after: torch.cuda.Event):
    """Run the block on ``stream`` once every event in ``after`` has completed."""
    for event in after:
        stream.wait_event(event)
    with torch.cuda.stream(stream):
        yield stream
