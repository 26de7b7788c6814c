"""Stream ordering helpers shared by the store and load paths."""

import torch


def order_behind_compute(stream):
    """Make ``stream`` wait for everything queued so far on the compute stream."""
    stream.wait_stream(torch.cuda.current_stream())
    return stream
