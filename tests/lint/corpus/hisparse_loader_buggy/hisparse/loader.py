import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List, Optional

import numpy as np
from numba import cuda

from .config import HiSparseConfig
from .host_store import HostPageStore
from .streams import StreamPair

logger = logging.getLogger(__name__)


class HiSparseLoader:
    """Loads the pages selected for the next decode step into ``staging``."""

    def __init__(self, config: HiSparseConfig, host_store: HostPageStore, streams: StreamPair):
        self.host_store = host_store
        self.streams = streams
        shape = (config.max_selected_pages, config.page_elems)
        self.staging = cuda.device_array(shape, dtype=config.dtype)
        self._gather_buf = cuda.pinned_array(shape, dtype=config.dtype)
        self._consumed = cuda.event(timing=False)
        self._loaded = cuda.event(timing=False)
        self._loaded.record(streams.load)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hisparse-load")
        self._pending: Optional[Future] = None
        self.num_loaded = 0

    def prefetch(self, page_ids: List[int]) -> None:
        """Called once the decode step reading ``staging`` has been launched."""
        self._consumed.record(self.streams.compute)
        self._pending = self._executor.submit(self._load, list(page_ids))

    def _stage(self, page_ids: List[int]) -> np.ndarray:
        self._loaded.synchronize()
        host_pages = self._gather_buf[: len(page_ids)]
        self.host_store.gather_into(page_ids, host_pages)
        return host_pages

    def _load(self, page_ids: List[int]) -> None:
        cold_pages = self.host_store.not_resident(page_ids)
        if cold_pages:
            self.host_store.fetch(cold_pages)
        else:
            self._consumed.wait(self.streams.load)
        host_pages = self._stage(page_ids)
        num_pages = len(page_ids)
        # expect: KVG004
        cuda.to_device(host_pages, stream=self.streams.load, to=self.staging[:num_pages])
        self._loaded.record(self.streams.load)
        self.num_loaded = num_pages

    def wait_ready(self) -> int:
        if self._pending is not None:
            self._pending.result()
            self._pending = None
        self._loaded.wait(self.streams.compute)
        return self.num_loaded

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
