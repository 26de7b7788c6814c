import logging
from typing import List

import numpy as np
from numba import cuda

from .config import HiSparseConfig
from .loader import HiSparseLoader
from .streams import StreamPair

logger = logging.getLogger(__name__)


@cuda.jit
def page_scores_kernel(q, pages, num_pages, out):
    p = cuda.grid(1)
    if p < num_pages:
        acc = 0.0
        for i in range(pages.shape[1]):
            acc += q[i % q.shape[0]] * pages[p, i]
        out[p] = acc


class HiSparseDecodeRunner:
    def __init__(self, config: HiSparseConfig, loader: HiSparseLoader, streams: StreamPair):
        self.config = config
        self.loader = loader
        self.streams = streams
        self.q_dev = cuda.device_array(config.head_dim, dtype=np.float32)
        self.out_dev = cuda.device_array(config.max_selected_pages, dtype=np.float32)
        self.out_host = cuda.pinned_array(config.max_selected_pages, dtype=np.float32)

    def start(self, first_page_ids: List[int]) -> None:
        self.loader.prefetch(first_page_ids)

    def step(self, q: np.ndarray, next_page_ids: List[int]) -> np.ndarray:
        num_pages = self.loader.wait_ready()
        compute = self.streams.compute
        self.q_dev.copy_to_device(q, stream=compute)
        tpb = self.config.threads_per_block
        blocks = (num_pages + tpb - 1) // tpb
        page_scores_kernel[blocks, tpb, compute](
            self.q_dev, self.loader.staging, num_pages, self.out_dev
        )
        self.loader.prefetch(next_page_ids)
        self.out_dev.copy_to_host(self.out_host, stream=compute)
        compute.synchronize()
        return self.out_host[:num_pages].copy()
