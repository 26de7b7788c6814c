"""Copies finished prefix blocks of a torch KV cache to pinned host memory with numba.

The cache stays a torch tensor; numba reads it through the CUDA Array Interface
(``cuda.as_cuda_array``), which for torch tensors carries no stream, so no implicit
synchronisation happens. The copies run on a torch side stream that numba drives through
``cuda.external_stream``, so that the engine can order it with ordinary torch calls."""

from concurrent.futures import Future, ThreadPoolExecutor
from typing import List, Optional, Sequence

import numpy as np
import torch
from numba import cuda

from .store import PrefixStore


class PrefixSnapshotter:
    def __init__(self, num_layers: int, block_elems: int, max_blocks: int, store: PrefixStore):
        self.store = store
        self.copy_stream = torch.cuda.Stream()
        self.nb_stream = cuda.external_stream(self.copy_stream.cuda_stream)
        self.h_blocks = cuda.pinned_array((max_blocks, num_layers, block_elems), dtype=np.float16)
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prefix-persist")
        self._pending: Optional[Future] = None

    def snapshot(self, kv: torch.Tensor, block_ids: Sequence[int], keys: List[str]) -> Future:
        if self._pending is not None:
            # the persist job of the last snapshot still reads h_blocks
            self._pending.result()
        d_kv = cuda.as_cuda_array(kv)
        for i, block in enumerate(block_ids):
            for layer in range(kv.shape[0]):
                # expect: KVG001
                d_kv[layer, block].copy_to_host(self.h_blocks[i, layer], stream=self.nb_stream)
        self._pending = self.pool.submit(self._persist, len(block_ids), keys)
        return self._pending

    def _persist(self, count: int, keys: List[str]) -> None:
        self.nb_stream.synchronize()
        for i in range(count):
            self.store.put(keys[i], self.h_blocks[i].tobytes())
