"""Two copy backends with the same interface, each owning its pinned CPU caches and side
streams. ``launch_store`` / ``launch_load`` make their stream wait on the ``ready`` event the
caller passes (recorded on the compute stream) and then copy; which backend a worker gets is
decided outside this package, so a call through the interface may reach either override."""

import torch
from vllm import _custom_ops as ops


class TensorCopyBackend:
    def __init__(self, gpu_caches, num_cpu_blocks):
        self.gpu_caches = gpu_caches
        self.cpu_caches = [
            torch.empty((num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()

    def launch_store(self, gpu_blocks, cpu_blocks, ready):
        self.store_stream.wait_event(ready)
        with torch.cuda.stream(self.store_stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                for g, c in zip(gpu_blocks, cpu_blocks):
                    # expect: KVG001
                    cpu_cache[c].copy_(gpu_cache[g], non_blocking=True)
        return self.store_stream.record_event()

    def launch_load(self, cpu_blocks, gpu_blocks, ready):
        self.load_stream.wait_event(ready)
        with torch.cuda.stream(self.load_stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                for c, g in zip(cpu_blocks, gpu_blocks):
                    gpu_cache[g].copy_(cpu_cache[c], non_blocking=True)
        return self.load_stream.record_event()


class SwapOpBackend:
    def __init__(self, gpu_caches, num_cpu_blocks):
        self.gpu_caches = gpu_caches
        self.cpu_caches = [
            torch.empty((num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()

    def launch_store(self, gpu_blocks, cpu_blocks, ready):
        mapping = torch.tensor(list(zip(gpu_blocks, cpu_blocks)), dtype=torch.int64)
        ready.wait(self.store_stream)
        with torch.cuda.stream(self.store_stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                # expect: KVG001
                ops.swap_blocks(gpu_cache, cpu_cache, mapping)
        return self.store_stream.record_event()

    def launch_load(self, cpu_blocks, gpu_blocks, ready):
        mapping = torch.tensor(list(zip(cpu_blocks, gpu_blocks)), dtype=torch.int64)
        ready.wait(self.load_stream)
        with torch.cuda.stream(self.load_stream):
            for gpu_cache, cpu_cache in zip(self.gpu_caches, self.cpu_caches):
                ops.swap_blocks(cpu_cache, gpu_cache, mapping)
        return self.load_stream.record_event()
