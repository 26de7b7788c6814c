from __future__ import annotations

from typing import Optional

from numba import cuda


def order_streams(first, then, event: Optional[object] = None):
    """Work queued on ``then`` after this call runs behind what is queued on ``first``."""
    event = event if event is not None else cuda.event(timing=False)
    event.record(first)
    event.wait(then)
    return event
