import logging

import cupy
import cupyx

logger = logging.getLogger(__name__)


class CupyDevice:
    """Owns the compute stream and the three copy streams of the overlapped schedule."""

    def __init__(self, device_id: int = 0):
        self.device_id = device_id
        self.dev = cupy.cuda.Device(device_id)
        with self.dev:
            self.compute_stream = cupy.cuda.Stream(non_blocking=True)
            self.load_weight_stream = cupy.cuda.Stream(non_blocking=True)
            self.store_cache_stream = cupy.cuda.Stream(non_blocking=True)
        logger.info("CupyDevice(%d) streams ready", device_id)

    def record(self, stream) -> "cupy.cuda.Event":
        event = cupy.cuda.Event(disable_timing=True)
        event.record(stream)
        return event


def allocate_pinned(shape, dtype):
    return cupyx.empty_pinned(shape, dtype=dtype)


def load_to_device(dst_dev, src_host, stream) -> None:
    dst_dev.set(src_host, stream=stream)


def store_to_host(src_dev, dst_host, stream) -> None:
    src_dev.get(stream=stream, out=dst_host, blocking=False)
