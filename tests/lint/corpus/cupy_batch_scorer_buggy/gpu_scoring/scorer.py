import logging
from dataclasses import dataclass
from typing import Iterable, List, Optional

import numpy

import cupy

from gpu_scoring.staging import PinnedStaging
from gpu_scoring.streams import StreamSet
from gpu_scoring.transfer import upload

logger = logging.getLogger(__name__)

_score_kernel = cupy.ReductionKernel(
    "T x, T w", "T y", "x * w", "a + b", "y = 1 / (1 + exp(-a))", "0", "sigmoid_dot"
)


@dataclass
class ScorerConfig:
    max_rows: int = 65536
    num_features: int = 256
    dtype: str = "float32"


class BatchScorer:
    def __init__(self, config: ScorerConfig, weights: numpy.ndarray):
        self.config = config
        self._streams = StreamSet()
        shape = (config.max_rows, config.num_features)
        self._staging = PinnedStaging(shape, config.dtype)
        with self._streams.compute:
            self._dev_in = cupy.empty(shape, dtype=config.dtype)
            self._dev_weights = cupy.asarray(weights, dtype=config.dtype)
        self._streams.compute.synchronize()
        self._uploaded: Optional[cupy.cuda.Event] = None
        self._consumed: Optional[cupy.cuda.Event] = None

    def score_batches(self, batches: Iterable[numpy.ndarray]) -> List[numpy.ndarray]:
        dev_scores = []
        for batch in batches:
            n = batch.shape[0]
            if n > self.config.max_rows:
                raise ValueError(f"batch of {n} rows exceeds max_rows={self.config.max_rows}")
            if self._uploaded is not None:
                self._uploaded.synchronize()
            host_view = self._staging.fill(batch)
            upload(self._dev_in[:n], host_view, self._streams.h2d)
            self._uploaded = self._streams.h2d.record()

            self._streams.compute.wait_event(self._uploaded)
            with self._streams.compute:
                dev_scores.append(_score_kernel(self._dev_in[:n], self._dev_weights, axis=1))
                self._consumed = self._streams.compute.record()

        self._streams.compute.synchronize()
        logger.debug("scored %d batches", len(dev_scores))
        return [s.get() for s in dev_scores]
