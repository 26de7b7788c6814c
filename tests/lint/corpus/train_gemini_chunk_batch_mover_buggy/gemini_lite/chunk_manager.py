"""Gemini-style chunk manager: parameter chunks move between a fixed set of device buffers
and pinned host shards on one move stream, many chunks per driver call. Evictions read
device memory the model wrote; fetches overwrite device buffers other chunks just left.
Bugs: eviction asks the driver for ANY source order on device sources (the event barrier
then does not gate the reads), and fetch overwrites recycled buffers without ordering the
move stream behind kernels still reading them.
"""

import torch

from .cuda_batch import ORDER_ANY, batch_memcpy


class Chunk:
    def __init__(self, chunk_id, numel, dtype):
        self.chunk_id = chunk_id
        self.nbytes = numel * torch.tensor([], dtype=dtype).element_size()
        self.cpu_shard = torch.empty(numel, dtype=dtype, pin_memory=True)
        self.cuda_shard = None


class ChunkManager:
    def __init__(self, chunk_numel, dtype, num_device_buffers):
        self.move_stream = torch.cuda.Stream()
        self.free_buffers = [
            torch.empty(chunk_numel, dtype=dtype, device="cuda") for _ in range(num_device_buffers)
        ]
        self.resident = {}

    def evict(self, chunks):
        if not chunks:
            return
        written = torch.cuda.Event()
        written.record()
        self.move_stream.wait_event(written)
        dsts = [c.cpu_shard.data_ptr() for c in chunks]
        srcs = [c.cuda_shard.data_ptr() for c in chunks]
        batch_memcpy(dsts, srcs, [c.nbytes for c in chunks], self.move_stream, ORDER_ANY)
        for c in chunks:
            # Only a later fetch on move_stream reuses the buffer, after this copy.
            self.free_buffers.append(c.cuda_shard)
            c.cuda_shard = None
            del self.resident[c.chunk_id]

    def fetch(self, chunks):
        if not chunks:
            return
        for c in chunks:
            c.cuda_shard = self.free_buffers.pop()
            self.resident[c.chunk_id] = c
        dsts = [c.cuda_shard.data_ptr() for c in chunks]
        srcs = [c.cpu_shard.data_ptr() for c in chunks]
        # Pinned host sources: nothing writes them on a stream, any order is fine.
        batch_memcpy(dsts, srcs, [c.nbytes for c in chunks], self.move_stream, ORDER_ANY)
        landed = torch.cuda.Event()
        landed.record(self.move_stream)
        torch.cuda.current_stream().wait_event(landed)
