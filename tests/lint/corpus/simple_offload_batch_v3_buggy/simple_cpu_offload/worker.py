import logging
from collections import deque

import numpy as np
import torch

from .config import SimpleCPUOffloadConfig
from .cuda_mem_ops import batch_memcpy_async, make_memcpy_attrs

logger = logging.getLogger(__name__)


def _descriptors(src_tensors, dst_tensors, src_ids: np.ndarray, dst_ids: np.ndarray):
    dsts: list[int] = []
    srcs: list[int] = []
    sizes: list[int] = []
    for src, dst in zip(src_tensors, dst_tensors):
        block_bytes = src.stride(0) * src.element_size()
        srcs.extend((src.data_ptr() + src_ids.astype(np.uint64) * block_bytes).tolist())
        dsts.extend((dst.data_ptr() + dst_ids.astype(np.uint64) * block_bytes).tolist())
        sizes.extend([block_bytes] * len(src_ids))
    return dsts, srcs, sizes


class SimpleCPUOffloadWorker:
    def __init__(self, config: SimpleCPUOffloadConfig, kv_caches: dict[str, torch.Tensor]):
        self.config = config
        self.gpu_caches = [t.view(t.shape[0], -1) for t in kv_caches.values()]
        self.cpu_caches = [
            torch.empty((config.num_cpu_blocks, t.shape[1]), dtype=t.dtype, pin_memory=True)
            for t in self.gpu_caches
        ]
        device = self.gpu_caches[0].device
        self.store_stream = torch.cuda.Stream(device=device)
        self.load_stream = torch.cuda.Stream(device=device)
        self._store_attrs = make_memcpy_attrs(config.store_src_access_order, config.store_flags)
        self._load_attrs = make_memcpy_attrs(config.load_src_access_order, config.load_flags)
        self._pending_stores: deque[tuple[torch.cuda.Event, list[str]]] = deque()
        self._pending_loads: deque[tuple[torch.cuda.Event, list[str]]] = deque()

    def store(self, req_ids: list[str], gpu_block_ids: np.ndarray, cpu_block_ids: np.ndarray) -> None:
        dsts, srcs, sizes = _descriptors(self.gpu_caches, self.cpu_caches, gpu_block_ids, cpu_block_ids)
        self.store_stream.wait_stream(torch.cuda.current_stream())
        batch_memcpy_async(dsts, srcs, sizes, self._store_attrs, self.store_stream.cuda_stream)
        event = torch.cuda.Event()
        event.record(self.store_stream)
        self._pending_stores.append((event, req_ids))

    def load(self, req_ids: list[str], cpu_block_ids: np.ndarray, gpu_block_ids: np.ndarray) -> torch.cuda.Event:
        dsts, srcs, sizes = _descriptors(self.cpu_caches, self.gpu_caches, cpu_block_ids, gpu_block_ids)
        self.load_stream.wait_stream(torch.cuda.current_stream())
        batch_memcpy_async(dsts, srcs, sizes, self._load_attrs, self.load_stream.cuda_stream)
        event = torch.cuda.Event()
        event.record(self.load_stream)
        self._pending_loads.append((event, req_ids))
        return event

    @staticmethod
    def _drain(pending: deque) -> set[str]:
        done: set[str] = set()
        while pending and pending[0][0].query():
            _, req_ids = pending.popleft()
            done.update(req_ids)
        return done

    def get_finished(self) -> tuple[set[str], set[str]]:
        return self._drain(self._pending_stores), self._drain(self._pending_loads)
