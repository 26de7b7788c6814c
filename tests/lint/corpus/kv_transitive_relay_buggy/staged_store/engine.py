"""A staged store engine: the blocks to offload are first gathered into one contiguous GPU
staging buffer on a gather stream (device to device), then a D2H stream copies the staging
buffer into a fresh pinned host buffer. The D2H stream is meant to be ordered behind the
compute stream through the gather stream. Bug: ``wait_stream`` is a snapshot, and the D2H
stream takes it before the gather (and the gather stream's own wait on compute) is queued,
so the host copy may read staging before the gather, and the forward, have written it."""

import torch


class StagedStoreEngine:
    def __init__(self, kv_cache, max_blocks):
        self.kv_cache = kv_cache
        self.device = kv_cache.device
        self.staging = torch.empty(
            (max_blocks,) + tuple(kv_cache.shape[1:]), dtype=kv_cache.dtype, device=self.device
        )
        self.gather_stream = torch.cuda.Stream(device=self.device)
        self.d2h_stream = torch.cuda.Stream(device=self.device)
        self.inflight = []

    def store(self, store_id, gpu_blocks):
        n = len(gpu_blocks)
        index = torch.tensor(gpu_blocks, dtype=torch.long, device=self.device)
        host = torch.empty((n,) + tuple(self.kv_cache.shape[1:]), dtype=self.kv_cache.dtype, pin_memory=True)

        self.d2h_stream.wait_stream(self.gather_stream)
        self.gather_stream.wait_stream(torch.cuda.current_stream())
        self.gather_stream.wait_stream(self.d2h_stream)
        with torch.cuda.stream(self.gather_stream):
            torch.index_select(self.kv_cache, 0, index, out=self.staging[:n])

        with torch.cuda.stream(self.d2h_stream):
            # expect: KVG001
            host.copy_(self.staging[:n], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        index.record_stream(self.gather_stream)
        self.inflight.append((store_id, host, done))

    def poll(self):
        finished = []
        still = []
        for store_id, host, done in self.inflight:
            if done.query():
                finished.append((store_id, host))
            else:
                still.append((store_id, host, done))
        self.inflight = still
        return finished
