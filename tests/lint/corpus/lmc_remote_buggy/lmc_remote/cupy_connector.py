import logging
from typing import List, Sequence, Tuple

import cupy
import cupyx
import numpy as np

logger = logging.getLogger(__name__)

HostChunk = Tuple[np.ndarray, List[int]]


class CupyPagedGPUConnector:
    """Moves KV pages between a paged device cache [num_pages, layers, 2, page_size, hidden]
    and pinned host chunks."""

    def __init__(self, kv_pages: cupy.ndarray, device_id: int = 0):
        self.kv_pages = kv_pages
        self.page_shape = kv_pages.shape[1:]
        with cupy.cuda.Device(device_id):
            self.store_stream = cupy.cuda.Stream(non_blocking=True)
            self.load_stream = cupy.cuda.Stream(non_blocking=True)
        logger.info("CupyPagedGPUConnector on device %d, page shape %s", device_id, self.page_shape)

    def allocate_host(self, num_pages: int) -> np.ndarray:
        return cupyx.empty_pinned((num_pages, *self.page_shape), dtype=self.kv_pages.dtype)

    def from_gpu(self, page_ids: Sequence[int], host_out: np.ndarray) -> cupy.cuda.Event:
        self.store_stream.wait_event(cupy.cuda.get_current_stream().record())
        for i, page in enumerate(page_ids):
            self.kv_pages[page].get(stream=self.store_stream, out=host_out[i], blocking=False)
        return self.store_stream.record()

    def to_gpu(self, host_chunk: np.ndarray, page_ids: List[int]) -> cupy.cuda.Event:
        self.load_stream.wait_event(cupy.cuda.get_current_stream().record())
        self._load_chunk(host_chunk, page_ids)
        return self.load_stream.record()

    def batched_to_gpu(self, chunks: List[HostChunk]) -> cupy.cuda.Event:
        for host_chunk, page_ids in chunks:
            self._load_chunk(host_chunk, page_ids)
        return self.load_stream.record()

    def _load_chunk(self, host_chunk: np.ndarray, page_ids: List[int]) -> None:
        for i, page in enumerate(page_ids):
            # expect: KVG004
            self.kv_pages[page].set(host_chunk[i], stream=self.load_stream)
