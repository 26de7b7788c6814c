import contextlib

import torch


@contextlib.contextmanager
def side_stream_after_caller(stream):
    """Run the block on ``stream``, ordered after the work already queued on the caller's stream."""
    caller = torch.cuda.current_stream(stream.device)
    stream.wait_stream(caller)
    with torch.cuda.stream(stream):
        yield stream
