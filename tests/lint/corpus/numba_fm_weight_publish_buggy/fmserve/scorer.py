"""Serves CTR predictions from a factorization machine whose weights an online trainer keeps
replacing. Scoring is asynchronous: a batch is queued on the compute stream and its
probabilities are collected later, so several batches are normally in flight. New weights are
uploaded on a separate stream from the publisher thread."""
import threading
from dataclasses import dataclass

import numpy as np
from numba import cuda

from .kernels import fm_score

DEPTH = 2


@dataclass
class Pending:
    host: np.ndarray
    done: object
    n: int

    def result(self):
        self.done.synchronize()
        return self.host[:self.n].copy()


class FMScorer:
    def __init__(self, bias, w, v, max_batch=8192, threads=128):
        self.threads = threads
        self.compute = cuda.stream()
        self.upload = cuda.stream()
        self.d_bias = cuda.to_device(np.asarray([bias], dtype=np.float32))
        self.d_w = cuda.to_device(w.astype(np.float32))
        self.d_v = cuda.to_device(v.astype(np.float32))
        self.h_bias = cuda.pinned_array(1, dtype=np.float32)
        self.h_w = cuda.pinned_array(w.shape, dtype=np.float32)
        self.h_v = cuda.pinned_array(v.shape, dtype=np.float32)
        self.d_out = [cuda.device_array(max_batch, dtype=np.float32) for _ in range(DEPTH)]
        self.h_out = [cuda.pinned_array(max_batch, dtype=np.float32) for _ in range(DEPTH)]
        self._uploaded = cuda.event(timing=False)
        self._weights_read = cuda.event(timing=False)
        self._lock = threading.Lock()
        self._turn = 0

    def score_async(self, indices, values, nnz):
        n = indices.shape[0]
        blocks = (n + self.threads - 1) // self.threads
        with self._lock:
            slot = self._turn % DEPTH
            self._turn += 1
            d_idx = cuda.to_device(indices, stream=self.compute)
            d_val = cuda.to_device(values, stream=self.compute)
            d_nnz = cuda.to_device(nnz, stream=self.compute)
            out = self.d_out[slot][:n]
            fm_score[blocks, self.threads, self.compute](
                d_idx, d_val, d_nnz, self.d_bias, self.d_w, self.d_v, out)
            self._weights_read.record(self.compute)
            out.copy_to_host(self.h_out[slot][:n], stream=self.compute)
            done = cuda.event(timing=False)
            done.record(self.compute)
        return Pending(self.h_out[slot], done, n)

    def publish(self, bias, w, v):
        """Called from the publisher thread with a fresh set of weights."""
        with self._lock:
            # the staging buffers may still feed the previous upload
            self._uploaded.synchronize()
            self.h_bias[0] = bias
            self.h_w[:] = w
            self.h_v[:] = v
            # expect: KVG004
            self.d_bias.copy_to_device(self.h_bias, stream=self.upload)
            # expect: KVG004
            self.d_w.copy_to_device(self.h_w, stream=self.upload)
            # expect: KVG004
            self.d_v.copy_to_device(self.h_v, stream=self.upload)
            self._uploaded.record(self.upload)
            # batches queued after this point score with the new weights
            self._uploaded.wait(self.compute)
