"""Stream helpers shared by the cache controller: make any number of side streams wait on the
caller's current stream, either directly or through one event recorded there."""

import torch


def wait_for_current(*streams):
    current = torch.cuda.current_stream()
    for stream in streams:
        stream.wait_stream(current)


def fence(*streams):
    event = torch.cuda.Event()
    event.record()
    for stream in streams:
        stream.wait_event(event)
    return event
