# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from collections import defaultdict
from typing import Dict, List, Optional

import torch

from .config import HybridOptimizerConfig
from .grad_transfer import copy_grads_to_host, copy_params_to_device
from .streams import get_d2h_stream, get_h2d_stream

logger = logging.getLogger(__name__)


class HybridDeviceOptimizer(torch.optim.Optimizer):
    """Updates a fraction of the parameters on the host with a CPU optimizer
    and the rest on the device, overlapping grad D2H with the device step."""

    def __init__(self, params, config: HybridOptimizerConfig, cpu_optimizer_cls, gpu_optimizer_cls, **kwargs):
        super().__init__(params, defaults=dict(kwargs))
        self.config = config
        self.cpu_optimizer_cls = cpu_optimizer_cls
        self.gpu_optimizer_cls = gpu_optimizer_cls
        self.sub_optimizer_kwargs = kwargs

        self._d2h_stream = get_d2h_stream(config.overlap_cpu_optimizer_d2h_h2d)
        self._h2d_stream = get_h2d_stream(config.overlap_cpu_optimizer_d2h_h2d)
        self.cpu_copy_map_grad: Dict[torch.Tensor, torch.Tensor] = defaultdict(torch.Tensor)
        self._d2h_events: Dict[torch.optim.Optimizer, torch.cuda.Event] = {}
        self._split_params()
        self._register_copy_back_hooks()

    def _split_params(self) -> None:
        params = [p for g in self.param_groups for p in g["params"]]
        threshold = sum(p.numel() for p in params if p.is_cuda) * self.config.offload_fraction
        offloaded = 0
        self.cpu_to_gpu: Dict[torch.Tensor, torch.Tensor] = {}
        self.gpu_to_fp32: Dict[torch.Tensor, torch.Tensor] = {}
        cpu_params: List[torch.Tensor] = []
        gpu_params: List[torch.Tensor] = []
        for p in params:
            if offloaded < threshold and p.is_cuda:
                host = p.detach().clone().cpu()
                if self.config.pin_cpu_params:
                    host = host.pin_memory()
                self.cpu_to_gpu[host] = p
                cpu_params.append(host)
                offloaded += p.numel()
                continue
            if self.config.param_update_in_fp32 and p.dtype != torch.float32:
                self.gpu_to_fp32[p] = p.detach().clone().float()
                gpu_params.append(self.gpu_to_fp32[p])
            else:
                gpu_params.append(p)
        # one CPU optimizer per param so each can start as soon as its grad lands
        self.cpu_optimizers = [self.cpu_optimizer_cls([hp], **self.sub_optimizer_kwargs) for hp in cpu_params]
        self.gpu_optimizer: Optional[torch.optim.Optimizer] = (
            self.gpu_optimizer_cls(gpu_params, **self.sub_optimizer_kwargs) if gpu_params else None
        )

    def _register_copy_back_hooks(self) -> None:
        def _copy_back(optimizer, args, kwargs):
            pairs = [(hp, self.cpu_to_gpu[hp]) for g in optimizer.param_groups for hp in g["params"]]
            self._h2d_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self._h2d_stream):
                copy_params_to_device(pairs)
            torch.cuda.current_stream().wait_stream(self._h2d_stream)

        for opt in self.cpu_optimizers:
            opt.register_step_post_hook(_copy_back)

    def _cast_grads_to_fp32(self) -> None:
        for p, fp32 in self.gpu_to_fp32.items():
            grad = getattr(p, "decoupled_grad", p.grad)
            fp32.grad = None if grad is None else grad.to(fp32.dtype)

    def _launch_grad_d2h(self) -> None:
        with torch.cuda.stream(self._d2h_stream):
            for opt in self.cpu_optimizers:
                pairs = [(hp, self.cpu_to_gpu[hp]) for g in opt.param_groups for hp in g["params"]]
                copy_grads_to_host(pairs, self.cpu_copy_map_grad, self.config.pin_cpu_grads)
                self._d2h_events[opt] = self._d2h_stream.record_event()

    @torch.no_grad()
    def step(self, closure=None):
        if self.config.param_update_in_fp32:
            self._cast_grads_to_fp32()
        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        self._launch_grad_d2h()

        if self.gpu_optimizer is not None:
            self.gpu_optimizer.step(closure)
            for p, fp32 in self.gpu_to_fp32.items():
                p.data.copy_(fp32.data)

        for opt in self.cpu_optimizers:
            event = self._d2h_events.pop(opt, None)
            if event is not None:
                event.synchronize()
            opt.step(closure)
        logger.debug("hybrid step done: %d cpu sub-optimizers", len(self.cpu_optimizers))
