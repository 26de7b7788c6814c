"""A numba KV cache: the append kernel runs on an explicit compute stream (``cuda.stream()``),
and evicted blocks are copied into a ``cuda.pinned_array`` pool with
``d_block.copy_to_host(h_block, stream=store)`` on a second stream. (numba's streams are
blocking streams, but they order nothing between each other.) Bugs: the store stream never
waits on the compute stream, and the spilled bytes are read before the store stream is
synchronised."""

import numpy as np
from numba import cuda


@cuda.jit
def append_kv(cache, slots, values):
    row, col = cuda.grid(2)
    if row < slots.shape[0] and col < cache.shape[1]:
        cache[slots[row], col] = values[row, col]


class NumbaKVCache:
    def __init__(self, num_blocks, num_host_blocks, block_elems):
        self.compute = cuda.stream()
        self.store = cuda.stream()
        self.d_cache = cuda.device_array((num_blocks, block_elems), dtype=np.float16, stream=self.compute)
        self.h_cache = cuda.pinned_array((num_host_blocks, block_elems), dtype=np.float16)

    def append(self, d_slots, d_values):
        threads = (1, 128)
        blocks = (d_slots.shape[0], (self.d_cache.shape[1] + 127) // 128)
        append_kv[blocks, threads, self.compute](self.d_cache, d_slots, d_values)

    def spill(self, gpu_blocks, host_slots, sink):
        for gpu_block, host_slot in zip(gpu_blocks, host_slots):
            # expect: KVG001
            self.d_cache[gpu_block].copy_to_host(self.h_cache[host_slot], stream=self.store)
        for host_slot in host_slots:
            # expect: KVG003
            sink.write(self.h_cache[host_slot].tobytes())
        self.store.synchronize()
