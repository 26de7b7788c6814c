from __future__ import annotations

import logging
import threading

from .collector import MetricsCollector, Snapshot
from .counters import Counter

logger = logging.getLogger(__name__)


class StatLoggerThread(threading.Thread):
    """Turns cumulative counter snapshots into throughput / acceptance-rate log lines."""

    def __init__(self, collector: MetricsCollector) -> None:
        super().__init__(name="stat-logger", daemon=True)
        self._collector = collector
        self._prev: tuple[float, list[int]] | None = None

    def run(self) -> None:
        while (snap := self._collector.snapshots.get()) is not None:
            self._handle(snap)

    def _handle(self, snap: Snapshot) -> None:
        snap.ready.synchronize()
        values = snap.host_values.tolist()
        self._collector.release(snap.slot)
        if self._prev is not None:
            prev_t, prev = self._prev
            dt = max(snap.timestamp - prev_t, 1e-6)
            d = [cur - old for cur, old in zip(values, prev)]
            drafted = d[Counter.SPEC_DRAFT_TOKENS]
            accept = d[Counter.SPEC_ACCEPTED_TOKENS] / drafted if drafted else float("nan")
            hits = d[Counter.PREFIX_CACHE_HITS] / max(d[Counter.PREFIX_CACHE_QUERIES], 1)
            logger.info(
                "step %d: prompt %.1f tok/s, generation %.1f tok/s, spec accept %.2f, "
                "prefix hit %.2f, finished %d",
                snap.step,
                d[Counter.PROMPT_TOKENS] / dt,
                d[Counter.GENERATION_TOKENS] / dt,
                accept,
                hits,
                d[Counter.FINISHED_REQUESTS],
            )
        self._prev = (snap.timestamp, values)
