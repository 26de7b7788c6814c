"""Greedy sampling on the compute stream with asynchronous host readback."""

import cupy
from cupy.cuda import runtime

from .staging import HostStaging


class GreedySampler:
    def __init__(self, staging: HostStaging, compute: cupy.cuda.Stream,
                 copy_stream: cupy.cuda.Stream):
        self.staging = staging
        self.compute = compute
        self.copy_stream = copy_stream
        self._tokens_ready = None

    def sample(self, logits: cupy.ndarray, n: int):
        with self.compute:
            scores = logits[:n].astype(cupy.float32)
            ids = cupy.argmax(scores, axis=1).astype(cupy.int32)
            peak = scores.max(axis=1, keepdims=True)
            lse = cupy.log(cupy.exp(scores - peak).sum(axis=1)) + peak[:, 0]
            logprobs = scores[cupy.arange(n), ids] - lse
        # Token ids go back on the compute stream itself: ordered after argmax.
        runtime.memcpyAsync(self.staging.tokens.ctypes.data, ids.data.ptr, n * ids.itemsize,
                            runtime.memcpyDeviceToHost, self.compute.ptr)
        self._tokens_ready = self.compute.record()
        return ids, logprobs

    def wait_tokens(self) -> None:
        self._tokens_ready.synchronize()

    def fetch_logprobs(self, logprobs: cupy.ndarray, n: int) -> None:
        logprobs.get(stream=self.copy_stream, out=self.staging.logprobs[:n], blocking=False)
