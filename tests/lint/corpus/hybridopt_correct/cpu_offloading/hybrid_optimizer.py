# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Dict, List, Optional, Type

import torch

from .clip_grads import clip_grad_norm_fp32
from .optimizer_config import CpuOffloadOptimizerConfig
from .transfer import copy_grad_to_host, copy_param_to_device, empty_host_like

logger = logging.getLogger(__name__)


class HybridDeviceOptimizer:
    """
    Runs the update of a fraction of the parameters on the host. Gradients are downloaded
    on a dedicated stream and parameters are uploaded back after the host step.
    """

    def __init__(
        self,
        params: List[torch.nn.Parameter],
        config: CpuOffloadOptimizerConfig,
        cpu_optimizer_cls: Type[torch.optim.Optimizer],
        gpu_optimizer_cls: Type[torch.optim.Optimizer],
        **optimizer_kwargs,
    ):
        self.config = config
        self.params = list(params)
        self.cpu_copy_map_grad: Dict[torch.Tensor, torch.Tensor] = {}
        self.gpu_params_map_cpu_copy: Dict[torch.Tensor, torch.Tensor] = {}
        offloaded, resident = self._split_params(config.offload_fraction)
        for param in offloaded:
            cpu_param = param.detach().float().cpu()
            if config.pin_cpu_params:
                cpu_param = cpu_param.pin_memory()
            self.gpu_params_map_cpu_copy[param] = cpu_param
        self.cpu_optimizer = cpu_optimizer_cls(list(self.gpu_params_map_cpu_copy.values()), **optimizer_kwargs)
        self.gpu_optimizer = gpu_optimizer_cls(resident, **optimizer_kwargs) if resident else None

        if config.overlap_cpu_optimizer_d2h_h2d:
            self._d2h_stream = torch.cuda.Stream()
            self._h2d_stream = torch.cuda.Stream()
        else:
            self._d2h_stream = torch.cuda.current_stream()
            self._h2d_stream = torch.cuda.current_stream()

    def _split_params(self, offload_fraction: float):
        threshold = offload_fraction * sum(p.numel() for p in self.params)
        offloaded, resident, numel = [], [], 0
        for param in self.params:
            if numel < threshold:
                offloaded.append(param)
                numel += param.numel()
            else:
                resident.append(param)
        return offloaded, resident

    def _download_grads(self, grads_ready: torch.cuda.Event) -> torch.cuda.Event:
        self._d2h_stream.wait_event(grads_ready)
        with torch.cuda.stream(self._d2h_stream):
            for param, cpu_param in self.gpu_params_map_cpu_copy.items():
                if param.grad is None:
                    cpu_param.grad = None
                    continue
                if cpu_param not in self.cpu_copy_map_grad:
                    self.cpu_copy_map_grad[cpu_param] = empty_host_like(cpu_param, self.config.pin_cpu_grads)
                cpu_param.grad = self.cpu_copy_map_grad[cpu_param]
                copy_grad_to_host(cpu_param.grad, param.grad)
        return self._d2h_stream.record_event()

    def _upload_params(self) -> None:
        self._h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._h2d_stream):
            for param, cpu_param in self.gpu_params_map_cpu_copy.items():
                copy_param_to_device(param, cpu_param)
        torch.cuda.current_stream().wait_stream(self._h2d_stream)

    @torch.no_grad()
    def step(self) -> Optional[float]:
        grads = [p.grad for p in self.params if p.grad is not None]
        grad_norm = None
        if self.config.clip_grad > 0.0:
            grad_norm = clip_grad_norm_fp32(grads, self.config.clip_grad)
        grads_ready = torch.cuda.Event()
        grads_ready.record()

        d2h_done = self._download_grads(grads_ready)
        if self.gpu_optimizer is not None:
            self.gpu_optimizer.step()
        d2h_done.synchronize()
        self.cpu_optimizer.step()
        self._upload_params()
        return grad_norm

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.params:
            if set_to_none:
                param.grad = None
            elif param.grad is not None:
                param.grad.zero_()
