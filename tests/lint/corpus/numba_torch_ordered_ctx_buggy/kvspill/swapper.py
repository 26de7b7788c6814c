import logging
from typing import Dict, List, Sequence

import numpy as np
import torch
from numba import cuda

from .streams import numba_side_stream

logger = logging.getLogger(__name__)


class NumbaSwapper:
    def __init__(self, kv_caches: List[torch.Tensor], num_host_blocks: int):
        # each cache: [num_blocks, block_numel] on the GPU, written by attention kernels
        self.kv_caches = kv_caches
        self.gpu_views = [cuda.as_cuda_array(t) for t in kv_caches]
        block_numel = kv_caches[0].shape[1]
        np_dtype = np.float16 if kv_caches[0].dtype == torch.float16 else np.float32
        self.host = [cuda.pinned_array((num_host_blocks, block_numel), dtype=np_dtype)
                     for _ in kv_caches]
        self.side = torch.cuda.Stream(priority=-1)
        self.swapped: Dict[str, List[int]] = {}
        self._done = torch.cuda.Event()

    def swap_out(self, request_id: str, gpu_blocks: Sequence[int],
                 host_blocks: Sequence[int]) -> None:
        """Called by the scheduler step after the forward that last wrote these blocks."""
        with numba_side_stream(self.side) as nb_stream:
            for view, host in zip(self.gpu_views, self.host):
                for g, h in zip(gpu_blocks, host_blocks):
                    # expect: KVG001
                    view[g].copy_to_host(host[h], stream=nb_stream)
        self._done.record(self.side)
        self.swapped[request_id] = list(host_blocks)

    def swap_in(self, request_id: str, gpu_blocks: Sequence[int]) -> None:
        """Brings a resumed request's blocks back into GPU blocks the scheduler just
        allocated to it (blocks another request may have used until this step)."""
        host_blocks = self.swapped.pop(request_id)
        if len(host_blocks) != len(gpu_blocks):
            raise ValueError(f"{request_id}: {len(host_blocks)} swapped blocks, "
                             f"{len(gpu_blocks)} allocated")
        with numba_side_stream(self.side) as nb_stream:
            for view, host in zip(self.gpu_views, self.host):
                for h, g in zip(host_blocks, gpu_blocks):
                    # expect: KVG004
                    view[g].copy_to_device(host[h], stream=nb_stream)
        loaded = torch.cuda.Event()
        loaded.record(self.side)
        # the forward that reads the swapped-in blocks runs after the copies
        torch.cuda.current_stream().wait_event(loaded)
        logger.debug("swapped in %s (%d blocks)", request_id, len(gpu_blocks))

    def wait_swapped(self) -> None:
        """Before the freed GPU blocks are handed to another request."""
        torch.cuda.current_stream().wait_event(self._done)
