import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
from numba import cuda

from .constants import PREFETCH_WORKERS
from .slots import DeviceSlot

logger = logging.getLogger(__name__)


class AdapterPrefetcher:
    """Loads packed adapter weights into device slots on a worker-owned stream."""

    def __init__(self, device_id: int):
        self._device_id = device_id
        self._tls = threading.local()
        self._pool = ThreadPoolExecutor(
            max_workers=PREFETCH_WORKERS,
            thread_name_prefix="lora-prefetch",
            initializer=self._init_worker,
        )

    def _init_worker(self) -> None:
        cuda.select_device(self._device_id)
        self._tls.stream = cuda.stream()

    def submit(self, slot: DeviceSlot, pages: np.ndarray) -> Future:
        return self._pool.submit(self._load, slot, pages)

    def _load(self, slot: DeviceSlot, pages: np.ndarray):
        stream = self._tls.stream
        if slot.released is not None:
            slot.released.wait(stream=stream)
        slot.data.copy_to_device(pages, stream=stream)
        loaded = cuda.event(timing=False)
        loaded.record(stream=stream)
        logger.debug("slot %d <- adapter %s", slot.index, slot.adapter_id)
        return loaded

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
