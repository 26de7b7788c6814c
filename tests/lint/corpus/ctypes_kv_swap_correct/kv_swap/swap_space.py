import ctypes
import threading

import torch

from . import cudart
from .config import (MEM_LOCATION_DEVICE, MEM_LOCATION_HOST,
                     MEMCPY_HOST_TO_DEVICE, SwapConfig)


class SwapSpace:
    """GPU block pool plus its pinned host mirror, moved on one swap stream."""

    def __init__(self, config: SwapConfig):
        self.block_bytes = config.block_bytes
        self.gpu_pool = torch.empty((config.num_gpu_blocks, config.block_bytes),
                                    dtype=torch.uint8,
                                    device=f"cuda:{config.device_index}")
        self.cpu_pool = torch.empty((config.num_cpu_blocks, config.block_bytes),
                                    dtype=torch.uint8,
                                    pin_memory=True)
        self.stream = cudart.stream_create()
        self._out_attrs = cudart.MemcpyAttributes(
            srcAccessOrder=config.src_access_order,
            srcLocHint=cudart.MemLocation(MEM_LOCATION_DEVICE,
                                          config.device_index),
            dstLocHint=cudart.MemLocation(MEM_LOCATION_HOST, 0),
            flags=0)
        self._attrs_idx = ctypes.c_size_t(0)
        self._lock = threading.Lock()

    def _gpu_ptr(self, block_id: int) -> int:
        return self.gpu_pool.data_ptr() + block_id * self.block_bytes

    def _cpu_ptr(self, block_id: int) -> int:
        return self.cpu_pool.data_ptr() + block_id * self.block_bytes

    def swap_out(self, pairs: list[tuple[int, int]], fence):
        n = len(pairs)
        dsts = (ctypes.c_void_p * n)(*[self._cpu_ptr(c) for _, c in pairs])
        srcs = (ctypes.c_void_p * n)(*[self._gpu_ptr(g) for g, _ in pairs])
        sizes = (ctypes.c_size_t * n)(*([self.block_bytes] * n))
        fail_idx = ctypes.c_size_t(0)
        with self._lock:
            cudart.stream_wait_event(self.stream, fence)
            err = cudart.lib.cudaMemcpyBatchAsync(dsts, srcs, sizes, n,
                                                  ctypes.byref(self._out_attrs),
                                                  ctypes.byref(self._attrs_idx),
                                                  1, ctypes.byref(fail_idx),
                                                  self.stream)
            cudart.check(err, f"cudaMemcpyBatchAsync[{fail_idx.value}]")
            done = cudart.event_create()
            cudart.event_record(done, self.stream)
        cudart.event_destroy(fence)
        return done

    def swap_in(self, pairs: list[tuple[int, int]], fence):
        with self._lock:
            cudart.stream_wait_event(self.stream, fence)
            for cpu_id, gpu_id in pairs:
                err = cudart.lib.cudaMemcpyAsync(self._gpu_ptr(gpu_id),
                                                 self._cpu_ptr(cpu_id),
                                                 self.block_bytes,
                                                 MEMCPY_HOST_TO_DEVICE,
                                                 self.stream)
                cudart.check(err, "cudaMemcpyAsync")
            done = cudart.event_create()
            cudart.event_record(done, self.stream)
        cudart.event_destroy(fence)
        return done
