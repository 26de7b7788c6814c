"""Stream helpers shared by the offloaded caches."""

from contextlib import contextmanager

import torch


@contextmanager
def transfer_scope(stream, after=None):
    """Queue the copies made inside the block on ``stream``.

    The copies start only once everything ``after`` (by default the caller's current stream)
    has queued so far is done: a slot being refilled may still be read by attention kernels or
    by the eviction that writes it back. Yields an event that completes with the copies;
    whoever reads the destination makes its own stream wait on it first.
    """
    producer = after if after is not None else torch.cuda.current_stream(stream.device)
    stream.wait_stream(producer)
    done = torch.cuda.Event()
    with torch.cuda.stream(stream):
        yield done
        done.record(stream)
