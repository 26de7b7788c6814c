"""Small stream helpers shared by the offload code."""

from deepspeed.accelerator import get_accelerator


def fence_after_compute(stream):
    """Queue on ``stream`` a wait for everything the compute stream has queued so far."""
    stream.wait_stream(get_accelerator().current_stream())
    return stream


def sub_group_boundaries(sizes):
    offsets, total = [], 0
    for n in sizes:
        offsets.append(total)
        total += n
    return offsets, total
