from __future__ import annotations

import dataclasses

import cupy as cp


@dataclasses.dataclass
class DeviceStreams:
    """Per-device pair of streams: one for kernels, one for staging copies."""

    device_id: int
    compute: cp.cuda.Stream
    copy: cp.cuda.Stream

    @classmethod
    def create(cls, device_id: int) -> "DeviceStreams":
        with cp.cuda.Device(device_id):
            return cls(
                device_id=device_id,
                compute=cp.cuda.Stream(non_blocking=True),
                copy=cp.cuda.Stream(non_blocking=True),
            )


def record_on(stream: cp.cuda.Stream) -> cp.cuda.Event:
    """Record a fresh (timing-disabled) event on ``stream``."""
    ev = cp.cuda.Event(block=False, disable_timing=True)
    ev.record(stream)
    return ev
