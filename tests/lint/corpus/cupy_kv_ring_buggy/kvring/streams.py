import logging

import cupy

logger = logging.getLogger(__name__)


class StreamPool:
    """Owns the compute stream and the device-to-host spill stream."""

    def __init__(self, device_id: int = 0) -> None:
        self.device = cupy.cuda.Device(device_id)
        with self.device:
            self.compute = cupy.cuda.Stream(non_blocking=True)
            self.d2h = cupy.cuda.Stream(non_blocking=True)
        logger.debug("stream pool ready on device %d", device_id)

    def order_d2h_after_compute(self) -> cupy.cuda.Event:
        ev = cupy.cuda.Event(disable_timing=True)
        ev.record(self.compute)
        self.d2h.wait_event(ev)
        return ev
