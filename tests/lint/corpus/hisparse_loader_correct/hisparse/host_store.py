import logging
from typing import List, Sequence

import numpy as np
from numba import cuda

from .config import HiSparseConfig

logger = logging.getLogger(__name__)


class HostPageStore:
    """Pinned host copy of every KV page, filled lazily from L3 storage."""

    def __init__(self, config: HiSparseConfig, storage_backend):
        self.config = config
        self.page_elems = config.page_elems
        self.dtype = config.dtype
        self.pages = cuda.pinned_array((config.num_host_pages, config.page_elems), dtype=config.dtype)
        self.resident = np.zeros(config.num_host_pages, dtype=bool)
        self._backend = storage_backend

    def _key(self, page_id: int) -> str:
        return f"{self.config.storage_key_prefix}_{page_id}"

    def not_resident(self, page_ids: Sequence[int]) -> List[int]:
        return [p for p in page_ids if not self.resident[p]]

    def fetch(self, page_ids: Sequence[int]) -> None:
        blobs = self._backend.batch_get([self._key(p) for p in page_ids])
        for page_id, blob in zip(page_ids, blobs):
            if blob is None:
                raise KeyError(f"page {page_id} not found in storage")
            self.pages[page_id] = np.frombuffer(blob, dtype=self.dtype)
            self.resident[page_id] = True
        logger.debug("Fetched %d pages from storage", len(page_ids))

    def gather_into(self, page_ids: Sequence[int], out: np.ndarray) -> None:
        np.take(self.pages, np.asarray(page_ids, dtype=np.int64), axis=0, out=out)
