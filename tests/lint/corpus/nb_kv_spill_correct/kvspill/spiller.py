"""Evicts KV blocks from the device pool to a host-side spill file."""
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import BinaryIO, List

import numpy as np
from numba import cuda

from .config import BLOCK_TOKENS, HEAD_DIM, SPILL_WORKERS
from .kernels import pack_blocks
from .streams import StreamRing


class BlockSpiller:
    def __init__(self, sink: BinaryIO):
        self.streams = StreamRing()
        self.sink = sink
        self.peak_scale = 0.0
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=SPILL_WORKERS, thread_name_prefix="kv-spill")

    def spill(self, kv_dev, block_ids: List[int]) -> Future:
        n = len(block_ids)
        compute = self.streams.compute
        copy_stream = self.streams.next_copy()
        d_ids = cuda.to_device(np.asarray(block_ids, dtype=np.int32), stream=compute)
        d_packed = cuda.device_array((n, BLOCK_TOKENS, HEAD_DIM), dtype=np.int8, stream=compute)
        d_scales = cuda.device_array((n, BLOCK_TOKENS), dtype=np.float32, stream=compute)
        h_packed = cuda.pinned_array((n, BLOCK_TOKENS, HEAD_DIM), dtype=np.int8)
        h_scales = cuda.pinned_array((n, BLOCK_TOKENS), dtype=np.float32)
        pack_blocks[n, BLOCK_TOKENS, compute](kv_dev, d_ids, d_packed, d_scales)
        self.streams.handoff(compute, copy_stream)
        d_packed.copy_to_host(h_packed, stream=copy_stream)
        d_scales.copy_to_host(h_scales, stream=copy_stream)
        keep_alive = (d_ids, d_packed, d_scales)
        return self._executor.submit(self._persist, copy_stream, block_ids, h_packed, h_scales, keep_alive)

    def _persist(self, copy_stream, block_ids, h_packed, h_scales, keep_alive) -> int:
        copy_stream.synchronize()
        peak = float(h_scales.max())
        with self._lock:
            self.peak_scale = max(self.peak_scale, peak)
            for i, block_id in enumerate(block_ids):
                self.sink.write(np.int64(block_id).tobytes())
                self.sink.write(h_scales[i].tobytes())
                self.sink.write(h_packed[i].tobytes())
        return len(block_ids)
