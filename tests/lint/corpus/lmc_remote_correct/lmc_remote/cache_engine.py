import logging
from typing import List, Tuple

import cupy

from lmc_remote.constants import DEFAULT_CHUNK_PAGES
from lmc_remote.cupy_connector import CupyPagedGPUConnector, HostChunk
from lmc_remote.remote_backend import RemoteBackend

logger = logging.getLogger(__name__)


class LMCacheEngine:
    def __init__(self, gpu_connector: CupyPagedGPUConnector, backend: RemoteBackend, model_name: str,
                 chunk_pages: int = DEFAULT_CHUNK_PAGES):
        self.gpu_connector = gpu_connector
        self.backend = backend
        self.model_name = model_name
        self.chunk_pages = chunk_pages
        self._inflight_loads: List[Tuple[cupy.cuda.Event, List[HostChunk]]] = []

    def _key(self, chunk_hash: str) -> str:
        return f"{self.model_name}@{chunk_hash}"

    def _chunk_ranges(self, num_pages: int):
        for start in range(0, num_pages, self.chunk_pages):
            yield start, min(start + self.chunk_pages, num_pages)

    def store(self, page_hashes: List[str], page_ids: List[int]) -> int:
        stored = 0
        for start, end in self._chunk_ranges(len(page_ids)):
            key = self._key(page_hashes[end - 1])
            if self.backend.contains(key):
                continue
            host_buf = self.gpu_connector.allocate_host(end - start)
            done = self.gpu_connector.from_gpu(page_ids[start:end], host_buf)
            self.backend.submit_put_task(key, host_buf, done)
            stored += end - start
        return stored

    def retrieve(self, page_hashes: List[str], page_ids: List[int]) -> int:
        self._inflight_loads = [(ev, c) for ev, c in self._inflight_loads if not ev.done]
        chunks: List[HostChunk] = []
        for start, end in self._chunk_ranges(len(page_ids)):
            arr = self.backend.get(self._key(page_hashes[end - 1]))
            if arr is None:
                break
            host = self.gpu_connector.allocate_host(end - start)
            host[...] = arr
            chunks.append((host, page_ids[start:end]))
        if not chunks:
            return 0
        if len(chunks) == 1:
            done = self.gpu_connector.to_gpu(*chunks[0])
        else:
            done = self.gpu_connector.batched_to_gpu(chunks)
        cupy.cuda.get_current_stream().wait_event(done)
        self._inflight_loads.append((done, chunks))
        retrieved = sum(len(ids) for _, ids in chunks)
        logger.info("retrieved %d pages in %d chunks", retrieved, len(chunks))
        return retrieved
