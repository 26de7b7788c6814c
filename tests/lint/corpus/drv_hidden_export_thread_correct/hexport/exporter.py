import logging
from typing import Callable, Dict, List

import torch
from cuda.bindings import driver as cu

from .drv import new_event, ok
from .worker import CopyWorker, ExportJob

logger = logging.getLogger(__name__)


class HiddenStateExporter:
    """Called by the model runner after each forward with the step's hidden states."""

    def __init__(self, hidden: int, dtype: torch.dtype = torch.bfloat16, max_rows: int = 8192):
        self.results: Dict[str, torch.Tensor] = {}
        self.worker = CopyWorker(max_rows, hidden, dtype, self._deliver)
        self.worker.start()

    def _deliver(self, request_id: str, rows: torch.Tensor) -> None:
        self.results[request_id] = rows

    def on_step(self, hidden_states: torch.Tensor, spans: Dict[str, List[int]]) -> None:
        """spans: request id -> [first row, last row + 1] in hidden_states."""
        for request_id, (lo, hi) in spans.items():
            # the slice is a fresh contiguous tensor written on the model's stream
            src = hidden_states[lo:hi].contiguous()
            ready = new_event()
            ok(cu.cuEventRecord(ready, torch.cuda.current_stream().cuda_stream))
            self.worker.jobs.put(ExportJob(request_id, src, ready))

    def close(self) -> None:
        self.worker.jobs.put(None)
        self.worker.join()
