"""A batched store in the shape of LMCache's vLLM GPU connector: the store of many chunks fans
out over a thread pool with executor.map; every worker gathers its chunk into a pinned
MemoryObj on the connector's store stream and serializes it for the remote backend.
The engine thread records a ready-event on its current stream before fanning out; the lambda
carries it to every worker, which makes the store stream wait on it, gathers, records a done
event after the gather and synchronizes it before serializing the MemoryObj."""

import concurrent.futures

import torch

from lmc.gpu_ops import from_gpu
from lmc.memory import PinnedMemoryAllocator


class LMCacheGPUConnector:
    def __init__(self, num_layers, num_slots, num_heads, head_size, chunk_size, backend):
        self.kv_caches = [
            torch.zeros((2, num_slots, num_heads, head_size), dtype=torch.float16, device="cuda")
            for _ in range(num_layers)
        ]
        self.chunk_shape = (num_layers, 2, chunk_size, num_heads, head_size)
        self.chunk_size = chunk_size
        self.allocator = PinnedMemoryAllocator(64 << 20)
        self.store_stream = torch.cuda.Stream()
        self.executor = concurrent.futures.ThreadPoolExecutor(max_workers=4)
        self.backend = backend

    def batched_store(self, keys, starts):
        objs = [self.allocator.allocate(self.chunk_shape, torch.float16) for _ in keys]
        work = list(zip(keys, objs, starts))
        ready = torch.cuda.Event()
        ready.record()
        return list(self.executor.map(lambda item: self._store_chunk(*item, ready), work))

    def _store_chunk(self, key, memory_obj, start, ready):
        self.store_stream.wait_event(ready)
        with torch.cuda.stream(self.store_stream):
            from_gpu(memory_obj, self.kv_caches, start, start + self.chunk_size)
            done = torch.cuda.Event()
            done.record()
        done.synchronize()
        payload = memory_obj.tensor.numpy().tobytes()
        self.backend.put(key, payload)
        return key
