"""Overflow detection without a host sync per step: the device flag is copied to pinned
memory, and the next step reads what the previous one copied."""

from __future__ import annotations

import logging

import torch

logger = logging.getLogger(__name__)


class _OverflowMonitor:
    def __init__(self) -> None:
        self._flag_dev: torch.Tensor | None = None
        self._flag_host: torch.Tensor | None = None
        self._tripped = False

    def observe(self, grads: torch.Tensor) -> None:
        if self._tripped or not grads.is_cuda:
            return
        if self._flag_dev is None:
            self._flag_dev = torch.zeros(1, dtype=torch.int32, device=grads.device)
            self._flag_host = torch.zeros(1, dtype=torch.int32, pin_memory=True)
        # expect: KVG003
        if int(self._flag_host[0]):
            logger.warning("non-finite gradients seen; loss scaling may be too high")
            self._tripped = True
            return
        self._flag_dev.add_((~torch.isfinite(grads)).any().to(torch.int32))
        self._flag_host.copy_(self._flag_dev, non_blocking=True)


_monitor = _OverflowMonitor()


def check_gradients(grads: torch.Tensor | None) -> None:
    if grads is None:
        return
    _monitor.observe(grads)
