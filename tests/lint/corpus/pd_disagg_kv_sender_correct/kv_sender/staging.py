import queue
import threading
from dataclasses import dataclass

import cupy as cp
import cupyx
import numpy as np


@dataclass
class StagedChunk:
    request_id: str
    chunk_index: int
    num_chunks: int
    slot: int
    host_view: np.ndarray  # pinned bytes of this chunk
    done_event: cp.cuda.Event

    @property
    def nbytes(self) -> int:
        return self.host_view.nbytes


class PinnedStagingPool:
    def __init__(self, num_buffers: int, chunk_bytes: int):
        self.buffers = cupyx.empty_pinned((num_buffers, chunk_bytes), dtype=np.uint8)
        self._free = list(range(num_buffers))
        self._cond = threading.Condition()

    def acquire(self, timeout: float | None = None) -> int:
        with self._cond:
            if not self._cond.wait_for(lambda: self._free, timeout):
                raise TimeoutError("no free staging buffer")
            return self._free.pop()

    def release(self, slot: int) -> None:
        with self._cond:
            self._free.append(slot)
            self._cond.notify()


class KVStager:
    """Packs a request's KV blocks into pinned chunks on a side stream."""

    def __init__(self, pool: PinnedStagingPool, chunk_bytes: int, out_queue: "queue.Queue[StagedChunk | None]",
                 acquire_timeout_s: float):
        self._pool = pool
        self._chunk_bytes = chunk_bytes
        self._out = out_queue
        self._acquire_timeout_s = acquire_timeout_s
        self._stream = cp.cuda.Stream(non_blocking=True)

    def _group(self, blocks: list[cp.ndarray]) -> list[list[cp.ndarray]]:
        groups: list[list[cp.ndarray]] = []
        current: list[cp.ndarray] = []
        size = 0
        for blk in blocks:
            if current and size + blk.nbytes > self._chunk_bytes:
                groups.append(current)
                current, size = [], 0
            current.append(blk)
            size += blk.nbytes
        if current:
            groups.append(current)
        return groups

    def stage(self, request_id: str, kv_blocks: list[cp.ndarray], ready_event: cp.cuda.Event) -> int:
        groups = self._group(kv_blocks)
        # blocks were written by the prefill forward pass
        self._stream.wait_event(ready_event)
        for index, group in enumerate(groups):
            slot = self._pool.acquire(self._acquire_timeout_s)
            buf = self._pool.buffers[slot]
            offset = 0
            for blk in group:
                dst = buf[offset : offset + blk.nbytes].view(blk.dtype).reshape(blk.shape)
                blk.get(stream=self._stream, out=dst, blocking=False)
                offset += blk.nbytes
            done = cp.cuda.Event(disable_timing=True)
            done.record(self._stream)
            self._out.put(StagedChunk(request_id, index, len(groups), slot, buf[:offset], done))
        return len(groups)
