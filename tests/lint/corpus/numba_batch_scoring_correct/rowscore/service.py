import logging
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Dict, Iterable

import numpy as np

from rowscore.config import ScoringConfig
from rowscore.device_ctx import DeviceContextRegistry
from rowscore.worker import Batch, BatchWorker

logger = logging.getLogger(__name__)


class ScoringService:
    def __init__(self, cfg: ScoringConfig, weights: np.ndarray):
        self._cfg = cfg
        self._registry = DeviceContextRegistry(cfg.device_id, weights.astype(np.float32))
        self._worker = BatchWorker(cfg, self._registry)
        self._pool = ThreadPoolExecutor(max_workers=cfg.num_workers, thread_name_prefix="rowscore")

    def score(self, batches: Iterable[Batch], threshold: float = 0.5) -> Dict[int, float]:
        futures = [self._pool.submit(self._worker.run, b) for b in batches]
        hit_rates: Dict[int, float] = {}
        for fut in as_completed(futures):
            result = fut.result()
            hit_rates[result.batch_id] = float((result.scores > threshold).mean())
        logger.info("scored %d batches", len(hit_rates))
        return hit_rates

    def shutdown(self) -> None:
        self._pool.shutdown(wait=True)
