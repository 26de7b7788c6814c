"""Moves pages between the GPU pool and the pinned host pool for the KV cache manager:
eviction offloads GPU pages, reuse onboards host pages. All copies run on one copy stream
that first waits for the work the caller queued on its stream."""

import torch
import cuda.bindings.driver as drv

from ._copy_engine import CopyEngine, TransferConfig
from ._cuda import (CachedCudaEvent, CacheTier, CopyTask, DevicePool, HostPool, _unwrap,
                    stream_wait_events)


class StorageManager:
    def __init__(self, num_gpu_pages, num_host_pages, page_bytes, config=None):
        self.page_bytes = page_bytes
        self.gpu_pool = DevicePool(num_gpu_pages, page_bytes)
        self.host_pool = HostPool(num_host_pages, page_bytes)
        self.copy_engine = CopyEngine(config or TransferConfig())
        self.copy_stream = _unwrap(drv.cuStreamCreate(drv.CUstream_flags.CU_STREAM_NON_BLOCKING))
        self.ready_events = {}

    def _pool(self, tier):
        return self.gpu_pool if tier == CacheTier.GPU_MEM else self.host_pool

    def migrate(self, dst_tier, src_tier, page_pairs):
        """page_pairs: [(dst_page, src_page)]. Returns an event that completes with the copy."""
        caller = CachedCudaEvent(torch.cuda.current_stream().cuda_stream)
        stream_wait_events(self.copy_stream, [caller])
        dst_pool, src_pool = self._pool(dst_tier), self._pool(src_tier)
        tasks = [CopyTask(dst_pool.page_address(d), src_pool.page_address(s)) for d, s in page_pairs]
        self.copy_engine.transfer(self.page_bytes, tasks, self.copy_stream)
        done = CachedCudaEvent(self.copy_stream)
        for dst_page, _ in page_pairs:
            self.ready_events[(dst_tier, dst_page)] = done
        return done

    def offload(self, gpu_to_host_pages):
        return self.migrate(CacheTier.HOST_MEM, CacheTier.GPU_MEM, gpu_to_host_pages)

    def onboard(self, host_to_gpu_pages):
        done = self.migrate(CacheTier.GPU_MEM, CacheTier.HOST_MEM, host_to_gpu_pages)
        # the model reads onboarded pages on the caller's stream
        stream_wait_events(torch.cuda.current_stream().cuda_stream, [done])
        return done
