"""Copies finished KV blocks to pinned host memory on worker threads, each on its own copy
stream, so that the model thread only queues the request."""
from concurrent.futures import ThreadPoolExecutor

import torch
from cuda.bindings import runtime as cudart

from .cudart_util import check, new_event, thread_copy_stream
from .host_pool import HostBlockPool

D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost


class KVSpiller:
    def __init__(self, kv: torch.Tensor, num_host_blocks: int, workers: int = 2):
        self.kv = kv
        self.block_bytes = kv[0].numel() * kv.element_size()
        self.host = HostBlockPool(num_host_blocks, self.block_bytes)
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kv-spill")

    def spill(self, block_ids):
        """Called on the model thread right after the step that filled `block_ids`."""
        ready = new_event()
        check(cudart.cudaEventRecord(ready, torch.cuda.current_stream().cuda_stream))
        return self._pool.submit(self._copy_out, list(block_ids), ready)

    def _copy_out(self, block_ids, ready):
        stream = thread_copy_stream()
        # this worker's copy stream must not read the blocks before the step has written them
        check(cudart.cudaStreamWaitEvent(stream, ready, 0))
        placed = {}
        for block in block_ids:
            slot = self.host.acquire()
            check(cudart.cudaMemcpyAsync(self.host.ptr(slot), self.kv[block].data_ptr(),
                                         self.block_bytes, D2H, stream))
            placed[block] = slot
        check(cudart.cudaStreamSynchronize(stream))
        check(cudart.cudaEventDestroy(ready))
        return placed
