import asyncio
import json

import numpy as np
from numba import cuda

from nbserve.kernels import accumulate_histogram, score_rows
from nbserve.pool import LeasePool

THREADS = 128


class ScoringService:
    def __init__(self, weights, bias, pool_size=4, max_rows=4096, hist_bins=64):
        self.d_weights = cuda.to_device(np.ascontiguousarray(weights, dtype=np.float32))
        self.bias = np.float32(bias)
        self.pool = LeasePool(pool_size, max_rows)
        self.d_hist = cuda.device_array(hist_bins, dtype=np.int64)
        self.d_hist[:] = 0
        self.h_hist = cuda.pinned_array(hist_bins, dtype=np.int64)
        self.stats_stream = cuda.stream()
        self.snapshot_taken = cuda.event(timing=False)

    async def score(self, features):
        n = features.shape[0]
        async with self.pool.lease() as lease:
            if n > lease.capacity:
                raise ValueError(f"batch of {n} rows exceeds the pool's {lease.capacity}")
            stream = lease.stream
            d_features = cuda.to_device(np.ascontiguousarray(features, dtype=np.float32), stream=stream)
            d_scores = cuda.device_array(n, dtype=np.float32, stream=stream)
            blocks = (n + THREADS - 1) // THREADS
            score_rows[blocks, THREADS, stream](d_features, self.d_weights, self.bias, d_scores)
            # the histogram may be being copied out by the reporter
            self.snapshot_taken.wait(stream)
            accumulate_histogram[blocks, THREADS, stream](d_scores, n, self.d_hist)
            lease.hist_written.record(stream)
            d_scores.copy_to_host(lease.host_scores[:n], stream=stream)
            await asyncio.sleep(0)
            # expect: KVG003
            return lease.host_scores[:n].tolist()

    def snapshot_histogram(self):
        # expect: KVG001
        self.d_hist.copy_to_host(self.h_hist, stream=self.stats_stream)
        self.snapshot_taken.record(self.stats_stream)

    async def report_forever(self, sink, period_s=10.0):
        while True:
            await asyncio.sleep(period_s)
            self.snapshot_histogram()
            await self.stats_stream.async_done()
            sink.write(json.dumps({"histogram": self.h_hist.tolist()}) + "\n")
            sink.flush()


async def serve(service, requests, sink):
    reporter = asyncio.create_task(service.report_forever(sink))
    try:
        return await asyncio.gather(*(service.score(r) for r in requests))
    finally:
        reporter.cancel()
