from __future__ import annotations

import torch
from cuda.bindings import runtime as cudart

from kv_tier.cudart_utils import check, create_event


class ComputeFence:
    """Orders a transfer stream behind the model's compute stream."""

    def __init__(self):
        self._event = create_event()

    def order_after_compute(self, stream) -> None:
        compute = torch.cuda.current_stream().cuda_stream
        check(cudart.cudaEventRecord(self._event, compute))
        check(cudart.cudaStreamWaitEvent(stream, self._event, 0))
