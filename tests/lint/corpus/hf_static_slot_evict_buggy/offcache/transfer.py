"""Stream helpers shared by the offloaded caches."""

from contextlib import contextmanager

import torch


@contextmanager
def transfer_scope(stream):
    """Queue the copies made inside the block on ``stream``.

    Yields an event that completes with those copies; whoever reads the destination makes its
    own stream wait on it first.
    """
    done = torch.cuda.Event()
    with torch.cuda.stream(stream):
        yield done
        done.record(stream)
