"""Trainer callback flushing step metrics to the configured loggers."""

import logging
from typing import Any, Callable, Dict, List, Optional

from .constants import DEFAULT_LOG_INTERVAL
from .metrics import StepMetricsCollector
from .stream_utils import wait_for_host_copy

logger = logging.getLogger(__name__)


class MetricsLoggingCallback:

    def __init__(self, collector: StepMetricsCollector, log_interval: int = DEFAULT_LOG_INTERVAL,
                 sinks: Optional[List[Callable[[int, Dict[str, float]], Any]]] = None) -> None:
        self.collector = collector
        self.log_interval = log_interval
        self.sinks = sinks or []

    def _emit(self, step: int, values: Dict[str, float]) -> None:
        for sink in self.sinks:
            sink(step, values)
        logger.info("step %d: %s", step, " ".join(f"{k}={v:.4g}" for k, v in values.items()))

    def on_step_end(self, step: int, is_last_step: bool = False) -> None:
        if is_last_step:
            wait_for_host_copy(self.collector.copy_done)
            self._emit(step, self.collector.host_values())
        elif step % self.log_interval == 0:
            wait_for_host_copy(self.collector.copy_done)
            self._emit(step, self.collector.host_values())
