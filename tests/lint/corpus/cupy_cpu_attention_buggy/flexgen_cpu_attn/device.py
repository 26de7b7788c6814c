import logging

import cupy
import cupyx

from .constants import HOST_DTYPE

logger = logging.getLogger(__name__)


class CupyEnv:
    """Holds the streams shared by all layers on one GPU."""

    def __init__(self, device_id: int = 0):
        self.device = cupy.cuda.Device(device_id)
        with self.device:
            self.compute_stream = cupy.cuda.Stream(non_blocking=True)
            self.d2h_stream = cupy.cuda.Stream(non_blocking=True)
            self.h2d_stream = cupy.cuda.Stream(non_blocking=True)
        logger.info("initialized streams on device %d", device_id)

    @staticmethod
    def alloc_host(shape, dtype=HOST_DTYPE):
        return cupyx.empty_pinned(shape, dtype=dtype)

    def mark_compute(self):
        return self.compute_stream.record()
