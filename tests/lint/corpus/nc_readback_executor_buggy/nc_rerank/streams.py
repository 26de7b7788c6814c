"""Named CuPy streams and a cross-stream fence helper."""

from typing import Dict, Iterable

import cupy as cp


def make_streams(names: Iterable[str]) -> Dict[str, cp.cuda.Stream]:
    return {name: cp.cuda.Stream(non_blocking=True) for name in names}


def fence(producer: cp.cuda.Stream, consumer: cp.cuda.Stream) -> cp.cuda.Event:
    """Make ``consumer`` wait for everything queued on ``producer`` so far."""
    event = producer.record()
    consumer.wait_event(event)
    return event
