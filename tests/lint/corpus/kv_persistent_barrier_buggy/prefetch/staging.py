"""A KV prefetcher with a persistent GPU staging buffer. Loads copy pinned host blocks into
the staging buffer on an H2D stream; the compute stream waits on it and scatters staging
into the paged KV cache. Bugs: the H2D stream is ordered behind the compute stream before
the scatter is launched, so the next call's copy into staging can overwrite it while the
scatter still reads it; and stores rely on the barrier the previous offload call left on the
D2H stream, which says nothing about the forward that ran since and wrote their source."""

import torch


class StagedKVPrefetcher:
    def __init__(self, kv_cache, max_blocks):
        self.kv_cache = kv_cache
        self.device = torch.device("cuda", torch.cuda.current_device())
        block_shape = tuple(kv_cache.shape[1:])
        self.staging = torch.empty((max_blocks,) + block_shape, dtype=kv_cache.dtype, device=self.device)
        self.h2d_stream = torch.cuda.Stream(device=self.device)
        self.d2h_stream = torch.cuda.Stream(device=self.device)

    def load(self, host_blocks, gpu_blocks):
        n = host_blocks.shape[0]
        index = torch.tensor(gpu_blocks, dtype=torch.long, device=self.device)
        with torch.cuda.stream(self.h2d_stream):
            # expect: KVG004
            self.staging[:n].copy_(host_blocks, non_blocking=True)
        compute = torch.cuda.current_stream()
        compute.wait_stream(self.h2d_stream)
        self.h2d_stream.wait_stream(compute)
        self.kv_cache.index_copy_(0, index, self.staging[:n])

    def offload(self, gpu_blocks, host_out):
        with torch.cuda.stream(self.d2h_stream):
            for i, block in enumerate(gpu_blocks):
                # expect: KVG001
                host_out[i].copy_(self.kv_cache[block], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        self.d2h_stream.wait_stream(torch.cuda.current_stream())
        return done
