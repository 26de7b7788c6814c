"""A staged store engine: the blocks to offload are first gathered into one contiguous GPU
staging buffer on a gather stream (device to device), then a D2H stream copies the staging
buffer into a fresh pinned host buffer. The D2H stream is ordered behind the compute stream
transitively: the gather stream waits on the compute stream, the D2H stream waits on the
gather stream after the gather was queued. The gather also waits on the D2H stream so it
never overwrites staging while the previous store still reads it."""

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

        compute_done = torch.cuda.current_stream().record_event()
        self.gather_stream.wait_event(compute_done)
        with torch.cuda.stream(self.gather_stream):
            self.staging[:n].copy_(self.kv_cache[index], non_blocking=True)
        gathered = self.gather_stream.record_event()
        self.d2h_stream.wait_event(gathered)
        with torch.cuda.stream(self.d2h_stream):
            host.copy_(self.kv_cache[index], non_blocking=True)
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
