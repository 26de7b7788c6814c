from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from ._device import accelerator_device, current_stream, device_module, new_stream
from .flat_param import FlatParamHandle

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class CPUOffloadPolicy:
    offload_params: bool = True
    clip_grad_norm: float | None = 1.0


class OffloadManager:
    """Moves sharded gradients to pinned CPU memory as soon as autograd
    finishes accumulating them, and streams parameters back before forward."""

    def __init__(
        self,
        handles: Sequence[FlatParamHandle],
        policy: CPUOffloadPolicy = CPUOffloadPolicy(),
        device: torch.device | None = None,
    ) -> None:
        self.device = device or accelerator_device()
        self.policy = policy
        self.handles = list(handles)
        self._dev = device_module(self.device.type)
        self.offload_stream = new_stream(self.device)
        self.clip_coef = 1.0
        self._hook_handles = [
            h.flat_param.register_post_accumulate_grad_hook(self._make_post_backward_hook(h))
            for h in self.handles
        ]

    # ------------------------------------------------------------------ hooks
    def _make_post_backward_hook(self, handle: FlatParamHandle) -> Callable:
        def _post_backward(param: torch.nn.Parameter) -> None:
            if param.grad is None:
                return
            self._offload_grad(handle)

        return _post_backward

    def _offload_grad(self, handle: FlatParamHandle) -> None:
        grad = handle.flat_param.grad
        with self._dev.stream(self.offload_stream):
            # expect: KVG001
            handle.cpu_grad.copy_(grad, non_blocking=True)
            grad.record_stream(self.offload_stream)
        handle.flat_param.grad = None
        handle.grad_offloaded = True

    # ---------------------------------------------------------- step driving
    def finalize_backward(self) -> float:
        """Called from the root post-backward callback; returns the global grad norm."""
        sq_sum = 0.0
        for handle in self.handles:
            if not handle.grad_offloaded:
                continue
            # expect: KVG003
            sq_sum += float(np.square(handle.cpu_grad.numpy()).sum())
        total_norm = math.sqrt(sq_sum)
        clip = self.policy.clip_grad_norm
        # The CPU optimizer folds this coefficient into its update.
        self.clip_coef = 1.0
        if clip is not None and total_norm > clip:
            self.clip_coef = clip / (total_norm + 1e-6)
        logger.debug("grad norm after offload: %.4f", total_norm)
        return total_norm

    def load_params(self) -> None:
        """Bring the (CPU-updated) parameters back before the next forward."""
        if not self.policy.offload_params:
            return
        compute = current_stream(self.device)
        self.offload_stream.wait_stream(compute)
        with self._dev.stream(self.offload_stream):
            for handle in self.handles:
                handle.flat_param.data.copy_(handle.cpu_param, non_blocking=True)
        compute.wait_stream(self.offload_stream)
        for handle in self.handles:
            handle.grad_offloaded = False

    def remove_hooks(self) -> None:
        for h in self._hook_handles:
            h.remove()
        self._hook_handles.clear()
