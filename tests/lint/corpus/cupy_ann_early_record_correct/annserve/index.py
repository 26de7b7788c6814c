import threading
from typing import List, Sequence, Tuple

import cupy as cp
import numpy as np

from .buffers import HostResult


class PendingSearch:
    """Handle for one search: the top-k copies may still be in flight."""

    def __init__(self, nq: int, host: HostResult, done: cp.cuda.Event, labels: Sequence[str],
                 release, keepalive: Tuple[cp.ndarray, ...] = ()):
        self._nq = nq
        self._host = host
        self._done = done
        self._labels = labels
        self._release = release
        self._keepalive = keepalive     # device results the copies read

    def ready(self) -> bool:
        return self._done.done

    def result(self) -> List[List[Tuple[str, float]]]:
        self._done.synchronize()
        self._keepalive = ()
        try:
            ids = self._host.ids[: self._nq].tolist()
            scores = self._host.scores[: self._nq].tolist()
        finally:
            self._release(self._host)
        return [[(self._labels[i], s) for i, s in zip(row_ids, row_scores)]
                for row_ids, row_scores in zip(ids, scores)]


class FlatIPIndex:
    def __init__(self, embeddings: np.ndarray, labels: Sequence[str], k: int = 10,
                 max_queries: int = 256, host_buffers: int = 4):
        self.k = k
        self.labels = list(labels)
        self.max_queries = max_queries
        self.compute = cp.cuda.Stream(non_blocking=True)
        self.d2h = cp.cuda.Stream(non_blocking=True)
        with self.compute:
            self.matrix = cp.asarray(embeddings, dtype=cp.float16)
        self._lock = threading.Lock()
        self._free = [HostResult.allocate(max_queries, k) for _ in range(host_buffers)]
        self._cv = threading.Condition(self._lock)

    def _acquire(self) -> HostResult:
        with self._cv:
            while not self._free:
                self._cv.wait()
            return self._free.pop()

    def _release(self, host: HostResult) -> None:
        with self._cv:
            self._free.append(host)
            self._cv.notify()

    def search_async(self, queries: np.ndarray) -> PendingSearch:
        nq = queries.shape[0]
        if nq > self.max_queries:
            raise ValueError(f"{nq} queries > {self.max_queries}")
        host = self._acquire()
        with self.compute:
            q = cp.asarray(queries, dtype=cp.float16)
            scores = q @ self.matrix.T                                  # [nq, n]
            part = cp.argpartition(-scores, self.k, axis=1)[:, : self.k]
            top = cp.take_along_axis(scores, part, axis=1)
            order = cp.argsort(-top, axis=1)
            top_ids = cp.take_along_axis(part, order, axis=1).astype(cp.int64)
            top_scores = cp.take_along_axis(top, order, axis=1).astype(cp.float32)
            computed = self.compute.record()
        self.d2h.wait_event(computed)
        top_ids.get(stream=self.d2h, out=host.ids[:nq], blocking=False)
        top_scores.get(stream=self.d2h, out=host.scores[:nq], blocking=False)
        done = self.d2h.record()
        # the device results must outlive the copies: the pool hands freed blocks
        # back to the compute stream, which does not wait for d2h
        return PendingSearch(nq, host, done, self.labels, self._release,
                             keepalive=(top_ids, top_scores))
