# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Iterable, Optional

import torch

from .config import OptimizerOffloadConfig
from .cpu_adam import HostAdamW
from .grad_sync import copy_params_to_device, stage_grads_to_host

logger = logging.getLogger(__name__)


class HybridDeviceOffloadOptimizer:
    """
    Runs the optimizer step of a fraction of the parameters on the CPU: gradients are
    copied D2H, updated on the host in fp32, and the new values are copied back H2D.
    """

    def __init__(self, params: Iterable[torch.nn.Parameter], config: OptimizerOffloadConfig) -> None:
        self.config = config
        gpu_params = [p for p in params if p.is_cuda]
        n_offload = int(len(gpu_params) * config.optimizer_offload_fraction)
        self.offloaded_params = gpu_params[:n_offload]
        self.resident_params = gpu_params[n_offload:]

        self.cpu_params = [
            p.detach().float().cpu().pin_memory() if config.pin_cpu_params else p.detach().float().cpu()
            for p in self.offloaded_params
        ]
        self.cpu_grads = [
            torch.empty(cp.shape, dtype=torch.float32, pin_memory=config.pin_cpu_grads) for cp in self.cpu_params
        ]

        if config.overlap_cpu_optimizer_d2h_h2d:
            self._d2h_stream = torch.cuda.Stream()
            self._h2d_stream = torch.cuda.Stream()
        else:
            self._d2h_stream = torch.cuda.current_stream()
            self._h2d_stream = torch.cuda.current_stream()

        betas = (config.adam_beta1, config.adam_beta2)
        self.cpu_optimizer = HostAdamW(config.lr, betas, config.adam_eps, config.weight_decay)
        self.gpu_optimizer: Optional[torch.optim.Optimizer] = None
        if self.resident_params:
            self.gpu_optimizer = torch.optim.AdamW(
                self.resident_params, lr=config.lr, betas=betas, eps=config.adam_eps,
                weight_decay=config.weight_decay,
            )
        logger.info(
            "offloading optimizer step of %d/%d params (overlap=%s)",
            len(self.offloaded_params), len(gpu_params), config.overlap_cpu_optimizer_d2h_h2d,
        )

    @torch.no_grad()
    def step(self) -> None:
        compute = torch.cuda.current_stream()
        self._d2h_stream.wait_stream(compute)
        active = [i for i, p in enumerate(self.offloaded_params) if p.grad is not None]
        pairs = [(self.cpu_grads[i], self.offloaded_params[i].grad) for i in active]
        d2h_done = stage_grads_to_host(pairs, self._d2h_stream)

        if self.gpu_optimizer is not None:
            self.gpu_optimizer.step()

        if self.config.overlap_cpu_optimizer_d2h_h2d:
            d2h_done.synchronize()
        self.cpu_optimizer.step([self.cpu_params[i] for i in active], [self.cpu_grads[i] for i in active])

        self._h2d_stream.wait_stream(compute)
        updated = [(self.offloaded_params[i], self.cpu_params[i]) for i in active]
        copy_params_to_device(updated, self._h2d_stream)
        compute.wait_stream(self._h2d_stream)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.offloaded_params + self.resident_params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()
