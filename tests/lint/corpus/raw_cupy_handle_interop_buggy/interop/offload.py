"""A cupy KV cache whose block copies go through raw handles: device addresses from
``array.data.ptr``, pinned host addresses from ``cupyx.empty_pinned(...).ctypes.data``, the
stores through cuda-python's ``cudaMemcpyAsync`` and the loads through
``cupy.cuda.runtime.memcpyAsync``, both on a non-blocking side stream passed as ``.ptr``.
Bugs: the store's event is recorded on the compute stream BEFORE the forward, so it does not
cover the forward's writes; the load does not wait on the compute stream at all."""

import cupy
import cupyx
import numpy
from cuda.bindings import runtime as cudart

from interop.barriers import wait_for


class RawHandleOffloader:
    def __init__(self, model, num_blocks, num_host_blocks, block_elems):
        self.model = model
        self.compute = cupy.cuda.Stream(non_blocking=True)
        self.side = cupy.cuda.Stream(non_blocking=True)
        self.cache = cupy.zeros((num_blocks, block_elems), dtype=cupy.float16)
        self.host = cupyx.empty_pinned((num_host_blocks, block_elems), dtype=numpy.float16)
        self.block_bytes = block_elems * 2

    def step(self, batch, evicted, fetched):
        with self.compute:
            ready = self.compute.record()
            self.model(batch, self.cache)
        self._store(evicted, ready)
        self._load(fetched)

    def _store(self, evicted, ready):
        wait_for(self.side, ready)
        device_base = self.cache.data.ptr
        host_base = self.host.ctypes.data
        for gpu_block, host_slot in evicted:
            # expect: KVG001
            (err,) = cudart.cudaMemcpyAsync(
                host_base + host_slot * self.block_bytes,
                device_base + gpu_block * self.block_bytes,
                self.block_bytes,
                cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost,
                self.side.ptr,
            )
            assert err == cudart.cudaError_t.cudaSuccess

    def _load(self, fetched):
        device_base = self.cache.data.ptr
        host_base = self.host.ctypes.data
        for host_slot, gpu_block in fetched:
            # expect: KVG004
            cupy.cuda.runtime.memcpyAsync(
                device_base + gpu_block * self.block_bytes,
                host_base + host_slot * self.block_bytes,
                self.block_bytes,
                cupy.cuda.runtime.memcpyHostToDevice,
                self.side.ptr,
            )
        wait_for(self.compute, self.side.record())
