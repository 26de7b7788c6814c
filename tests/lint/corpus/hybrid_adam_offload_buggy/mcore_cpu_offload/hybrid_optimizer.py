# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Callable, Dict, List, Optional, Type

import torch

from .grad_utils import count_nonfinite, main_grad_of, param_generator
from .optimizer_config import OptimizerConfig
from .transfer_streams import get_transfer_streams

logger = logging.getLogger(__name__)


class HybridDeviceOptimizer(torch.optim.Optimizer):
    """
    Updates a fraction of the parameters on the host. Gradients of the offloaded parameters
    are staged into pinned host buffers on a D2H stream, the CPU optimizers step on them, and
    the updated values are copied back on an H2D stream.
    """

    def __init__(
        self,
        params,
        config: OptimizerConfig,
        cpu_optimizer_cls: Type[torch.optim.Optimizer],
        gpu_optimizer_cls: Type[torch.optim.Optimizer],
    ):
        super().__init__(params, defaults={"lr": config.lr, "weight_decay": config.weight_decay})
        self.config = config
        self.cpu_optimizer_cls = cpu_optimizer_cls
        self.gpu_optimizer_cls = gpu_optimizer_cls

        self.gpu_param_to_cpu_copy: Dict[torch.Tensor, torch.Tensor] = {}
        self.cpu_copy_to_gpu_param: Dict[torch.Tensor, torch.Tensor] = {}
        self._host_grads: Dict[torch.Tensor, torch.Tensor] = {}
        self._d2h_events: Dict[torch.optim.Optimizer, torch.cuda.Event] = {}

        self._init_sub_optimizers()
        self._d2h_stream, self._h2d_stream = get_transfer_streams(config.overlap_cpu_optimizer_d2h_h2d)
        self._register_param_copy_back_hooks()

    def _init_sub_optimizers(self) -> None:
        params = [p for group in self.param_groups for p in group["params"]]
        threshold = sum(p.numel() for p in params if p.is_cuda) * self.config.optimizer_offload_fraction
        offloaded = 0
        cpu_groups, gpu_groups = [], []
        for group in self.param_groups:
            hyper = {k: v for k, v in group.items() if k != "params"}
            gpu_params = []
            for param in group["params"]:
                if param.is_cuda and offloaded < threshold:
                    cpu_copy = param.detach().clone().cpu()
                    if self.config.pin_cpu_params:
                        cpu_copy = cpu_copy.pin_memory()
                    self.gpu_param_to_cpu_copy[param] = cpu_copy
                    self.cpu_copy_to_gpu_param[cpu_copy] = param
                    cpu_groups.append(dict(hyper, params=[cpu_copy]))
                    offloaded += param.numel()
                else:
                    gpu_params.append(param)
            if gpu_params:
                gpu_groups.append(dict(hyper, params=gpu_params))

        # One CPU optimizer per parameter so each can start as soon as its gradient lands.
        self.cpu_optimizers: List[torch.optim.Optimizer] = [self.cpu_optimizer_cls([g]) for g in cpu_groups]
        self.gpu_optimizer = self.gpu_optimizer_cls(gpu_groups) if gpu_groups else None
        logger.info(
            "HybridDeviceOptimizer: %d params updated on host (%d elements)", len(cpu_groups), offloaded
        )

    def _register_param_copy_back_hooks(self) -> None:
        def param_copy_back_gpu_hook(optimizer, args, kwargs):
            self._h2d_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self._h2d_stream):
                for cpu_param in param_generator(optimizer):
                    gpu_param = self.cpu_copy_to_gpu_param[cpu_param]
                    gpu_param.data.copy_(cpu_param.data, non_blocking=True)
            torch.cuda.current_stream().wait_stream(self._h2d_stream)

        for optimizer in self.cpu_optimizers:
            optimizer.register_step_post_hook(param_copy_back_gpu_hook)

    def _stage_host_grads(self) -> None:
        for optimizer in self.cpu_optimizers:
            for cpu_param in param_generator(optimizer):
                grad = main_grad_of(self.cpu_copy_to_gpu_param[cpu_param])
                if grad is None:
                    cpu_param.grad = None
                    continue
                host_grad = self._host_grads.get(cpu_param)
                if host_grad is None:
                    host_grad = torch.empty(
                        grad.shape, dtype=grad.dtype, device="cpu", pin_memory=self.config.pin_cpu_grads
                    )
                    self._host_grads[cpu_param] = host_grad
                host_grad.copy_(grad, non_blocking=True)
                cpu_param.grad = host_grad
            self._d2h_events[optimizer] = self._d2h_stream.record_event()

    def _found_nonfinite_host_grads(self) -> bool:
        return count_nonfinite(self._host_grads.values()) > 0

    def _sync_param_groups_to_sub_optimizers(self) -> None:
        for optimizer in self.cpu_optimizers + ([self.gpu_optimizer] if self.gpu_optimizer else []):
            for group in optimizer.param_groups:
                group["lr"] = self.param_groups[0]["lr"]
                group["weight_decay"] = self.param_groups[0]["weight_decay"]

    @torch.no_grad()
    def step(self, closure: Optional[Callable] = None) -> bool:
        self._sync_param_groups_to_sub_optimizers()

        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._d2h_stream):
            self._stage_host_grads()

        if self.config.check_for_nan_in_grad and self._found_nonfinite_host_grads():
            logger.warning("Found inf/nan in offloaded gradients, skipping optimizer step")
            for event in self._d2h_events.values():
                event.synchronize()
            self._d2h_events.clear()
            return False

        if self.gpu_optimizer is not None:
            self.gpu_optimizer.step(closure)

        for cpu_optimizer in self.cpu_optimizers:
            d2h_event = self._d2h_events.pop(cpu_optimizer, None)
            if d2h_event is not None:
                d2h_event.synchronize()
            cpu_optimizer.step(closure)
        return True
