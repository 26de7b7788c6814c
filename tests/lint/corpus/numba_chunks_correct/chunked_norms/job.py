import logging
import queue
from pathlib import Path

import numpy as np

from .pipeline import ChunkedNormPipeline

logger = logging.getLogger(__name__)


class NormJob:
    """Streams a memory-mapped matrix through the pipeline and gathers the per-row norms."""

    def __init__(self, path: Path, n_cols: int, dtype=np.float32):
        self._matrix = np.memmap(path, dtype=dtype, mode="r").reshape(-1, n_cols)
        self._pipeline = ChunkedNormPipeline(n_cols, dtype=dtype)
        self._results: "queue.Queue[tuple[int, np.ndarray]]" = queue.Queue()

    def run(self) -> np.ndarray:
        n_chunks = self._pipeline.run(self._matrix, lambda i, r: self._results.put((i, r)))
        parts = dict(self._results.get() for _ in range(n_chunks))
        norms = np.concatenate([parts[i] for i in range(n_chunks)])
        logger.info("computed %d row norms, max %.4f", norms.size, float(norms.max()))
        return norms
