import ctypes
import logging
from concurrent.futures import Future, ThreadPoolExecutor

import torch

from . import _cudart
from .ordering import order_after

logger = logging.getLogger(__name__)


class BlockSpiller:
    """Copies KV blocks out of a torch-owned pool and appends them to a spill file."""

    def __init__(self, kv_pool: torch.Tensor, path: str, max_inflight: int = 4) -> None:
        self.kv_pool = kv_pool
        self.block_bytes = kv_pool[0].numel() * kv_pool.element_size()
        self.stream = _cudart.stream_create()
        self.fence = _cudart.event_create()
        self.staging = [_cudart.host_alloc(self.block_bytes) for _ in range(max_inflight)]
        self.done = [_cudart.event_create() for _ in range(max_inflight)]
        self._file = open(path, "ab")
        self._io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kv-spill")
        self._next = 0
        self._pending: list[Future | None] = [None] * max_inflight

    def spill(self, block_id: int) -> Future:
        idx = self._next % len(self.staging)
        self._next += 1
        if self._pending[idx] is not None:
            self._pending[idx].result()
        compute = torch.cuda.current_stream().cuda_stream
        src = self.kv_pool[block_id].data_ptr()
        order_after(compute, self.stream, self.fence)
        err = _cudart.lib.cudaMemcpyAsync(self.staging[idx], ctypes.c_void_p(src), self.block_bytes,
                                          _cudart.cudaMemcpyDeviceToHost, self.stream)
        _cudart.check(err, "cudaMemcpyAsync")
        _cudart.event_record(self.done[idx], self.stream)
        self._pending[idx] = self._io.submit(self._write, idx, block_id)
        return self._pending[idx]

    def _write(self, idx: int, block_id: int) -> int:
        _cudart.event_synchronize(self.done[idx])
        payload = ctypes.string_at(self.staging[idx], self.block_bytes)
        self._file.write(payload)
        logger.debug("spilled block %d (%d bytes)", block_id, len(payload))
        return block_id

    def close(self) -> None:
        self._io.shutdown(wait=True)
        self._file.close()
