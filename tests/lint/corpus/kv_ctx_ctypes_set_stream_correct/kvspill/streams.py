"""Stream helpers: a side-stream context that first orders the side stream behind the streams
it is given."""

from contextlib import contextmanager

import torch


@contextmanager
def side_stream(stream, *after):
    for producer in after:
        stream.wait_stream(producer)
    with torch.cuda.stream(stream):
        yield stream
