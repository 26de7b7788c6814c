"""A cupy KV cache with host spill: the decode kernels run on a non-blocking compute stream
(``with self.compute:``), and evicted blocks are copied to a pinned ``cupyx.empty_pinned``
pool with ``block.get(stream=..., out=..., blocking=False)`` on a separate non-blocking
store stream. The store stream first waits on an event recorded on the compute stream, and
the host synchronises the store stream before it checksums the pinned slot."""

import zlib

import cupy
import cupyx
import numpy

_append = cupy.RawKernel(r"""
extern "C" __global__ void append_kv(half* cache, const half* values, const int* slots, int width) {
    int row = blockIdx.x;
    for (int col = threadIdx.x; col < width; col += blockDim.x) {
        cache[(long)slots[row] * width + col] = values[(long)row * width + col];
    }
}
""", "append_kv")


class CupyKVStore:
    def __init__(self, num_blocks, num_host_blocks, block_elems):
        self.block_elems = block_elems
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.store_stream = cupy.cuda.Stream(non_blocking=True)
        self.cache = cupy.zeros((num_blocks, block_elems), dtype=cupy.float16)
        self.host = cupyx.empty_pinned((num_host_blocks, block_elems), dtype=numpy.float16)

    def decode(self, values, slots):
        with self.compute:
            _append((len(slots),), (256,), (self.cache, values, slots, numpy.int32(self.block_elems)))

    def store(self, gpu_block, host_slot):
        written = self.compute.record()
        self.store_stream.wait_event(written)
        self.cache[gpu_block].get(stream=self.store_stream, out=self.host[host_slot], blocking=False)

    def evict(self, gpu_block, host_slot):
        self.store(gpu_block, host_slot)
        self.store_stream.synchronize()
        return zlib.crc32(self.host[host_slot].tobytes())
