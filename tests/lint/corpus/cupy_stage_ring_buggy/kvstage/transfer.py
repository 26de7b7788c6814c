from __future__ import annotations

import cupy

from .ring import PinnedSlot


def stage_out(src: cupy.ndarray, slot: PinnedSlot, stream: cupy.cuda.Stream) -> cupy.cuda.Event:
    """Queue a device-to-host copy of ``src`` into ``slot`` on ``stream``."""
    # expect: KVG001
    src.get(stream=stream, out=slot.host, blocking=False)
    slot.done = stream.record()
    return slot.done
