"""Collect per-step scalars on device and stage them in pinned host memory."""

import logging
from typing import Dict, List

import torch

from .constants import METRIC_NAMES, NUM_METRICS
from .stream_utils import current_device, use_stream

logger = logging.getLogger(__name__)


class StepMetricsCollector:

    def __init__(self) -> None:
        self.device = current_device()
        self._device_buf = torch.zeros(NUM_METRICS, dtype=torch.float32, device=self.device)
        self._host_buf = torch.zeros(NUM_METRICS, dtype=torch.float32, pin_memory=True)
        self._copy_stream = torch.Stream(device=self.device)
        self.copy_done = torch.Event()

    @torch.no_grad()
    def record(self, loss: torch.Tensor, parameters: List[torch.nn.Parameter], lr: float, tokens: int) -> None:
        torch.accelerator.current_stream().wait_event(self.copy_done)
        grads = [p.grad.detach() for p in parameters if p.grad is not None]
        grad_norm = torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(g) for g in grads]))
        self._device_buf[0].copy_(loss.detach())
        self._device_buf[1].copy_(grad_norm)
        self._device_buf[2].fill_(lr)
        self._device_buf[3].fill_(tokens)

        self._copy_stream.wait_stream(torch.accelerator.current_stream())
        with use_stream(self._copy_stream):
            self._host_buf.copy_(self._device_buf, non_blocking=True)
            self.copy_done.record(self._copy_stream)

    def host_values(self) -> Dict[str, float]:
        values = self._host_buf.tolist()
        return dict(zip(METRIC_NAMES, values))
