"""RerankRunner: upload -> score -> read back, with the read-back on a pool thread.

The device feature buffer is reused for every batch; scores are allocated per
batch so a late read-back never sees the next batch's results.
"""

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Tuple

import cupy as cp
import cupyx
import numpy as np

from .config import FEATURE_DIM, MAX_BATCH, READBACK_WORKERS, STREAM_NAMES
from .kernels import launch_scores
from .streams import fence, make_streams


class RerankRunner:
    def __init__(self, query: np.ndarray):
        self.streams = make_streams(STREAM_NAMES)
        self.pool = ThreadPoolExecutor(READBACK_WORKERS, thread_name_prefix="readback")
        with self.streams["compute"]:
            self.d_query = cp.asarray(query, dtype=cp.float32)
            self.d_features = cp.empty((MAX_BATCH, FEATURE_DIM), dtype=cp.float32)
        self.streams["compute"].synchronize()

    def submit(self, features: np.ndarray) -> "Future[Tuple[np.ndarray, np.ndarray]]":
        n = features.shape[0]
        staged = cupyx.empty_pinned(features.shape, dtype=np.float32)
        staged[...] = features
        h2d, compute = self.streams["h2d"], self.streams["compute"]
        # the previous batch's kernel may still be reading d_features
        fence(compute, h2d)
        self.d_features[:n].set(staged, stream=h2d)
        fence(h2d, compute)
        with compute:
            d_scores = cp.empty((n,), dtype=cp.float32)
        launch_scores(self.d_features[:n], self.d_query, d_scores, compute)
        # `staged` rides along so the pinned upload buffer outlives the copy
        return self.pool.submit(partial(self._readback, d_scores, staged))

    def _readback(self, d_scores: cp.ndarray, staged: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        stream = self.streams["compute"]
        host = cupyx.empty_pinned(d_scores.shape, dtype=np.float32)
        d_scores.get(stream=stream, out=host, blocking=False)
        landed = threading.Event()
        stream.add_callback(lambda _stream, _status, ev: ev.set(), landed)
        landed.wait()
        order = np.argsort(-host)
        return order, host[order]

    def close(self) -> None:
        self.pool.shutdown(wait=True)
