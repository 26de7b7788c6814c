"""Stream ordering helpers shared by the snapshot code."""

import torch


def fence(stream, producer=None):
    """Order `stream` behind everything queued so far on `producer` (default: the current
    stream), and hand it back so that it can be entered directly."""
    producer = producer if producer is not None else torch.cuda.current_stream()
    stream.wait_stream(producer)
    return stream
