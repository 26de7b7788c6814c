"""A generic helper that runs a callable with a given stream current, after making that stream
wait on the caller's current stream, and records a completion event on it afterwards."""

import torch


def run_on_stream(stream, fn, *args, **kwargs):
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        result = fn(*args, **kwargs)
        done = torch.cuda.Event()
        done.record()
    return result, done
