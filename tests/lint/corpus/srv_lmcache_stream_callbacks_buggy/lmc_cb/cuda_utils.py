"""A generic helper that runs a callable with a given stream current and records a completion
event on that stream after it; it does not order the stream behind anything."""

import torch


def run_on_stream(stream, fn, *args, **kwargs):
    with torch.cuda.stream(stream):
        result = fn(*args, **kwargs)
        done = torch.cuda.Event()
        done.record()
    return result, done
