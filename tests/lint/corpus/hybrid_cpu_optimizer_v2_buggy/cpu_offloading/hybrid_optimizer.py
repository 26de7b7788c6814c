import logging
from typing import Dict, List, Optional, Type

import torch

from .optimizer_config import CPUOffloadConfig
from .param_split import split_param_groups
from .transfer import copy_params_to_device, stage_grads_on_host

logger = logging.getLogger(__name__)


class HybridDeviceOptimizer(torch.optim.Optimizer):
    """
    Runs the update of part of the parameters on the host and the rest on the device. Gradients of the
    host-updated parameters are copied D2H before the host step and the updated values are copied back
    H2D from a step post hook.
    """

    def __init__(
        self,
        params,
        config: CPUOffloadConfig,
        cpu_optimizer_cls: Type[torch.optim.Optimizer],
        gpu_optimizer_cls: Type[torch.optim.Optimizer],
        **optimizer_kwargs,
    ):
        super().__init__(params, defaults=dict(optimizer_kwargs))
        self.config = config
        cpu_groups, gpu_groups, self.cpu_copy_to_gpu_param = split_param_groups(
            self.param_groups, config.offload_fraction, config.pin_cpu_params
        )
        self.cpu_optimizers: List[torch.optim.Optimizer] = [
            cpu_optimizer_cls([group], **optimizer_kwargs) for group in cpu_groups
        ]
        self.gpu_optimizer: Optional[torch.optim.Optimizer] = (
            gpu_optimizer_cls(gpu_groups, **optimizer_kwargs) if gpu_groups else None
        )
        self._host_grads: Dict[torch.Tensor, torch.Tensor] = {}
        self._d2h_events: Dict[torch.optim.Optimizer, torch.cuda.Event] = {}

        if config.overlap_cpu_optimizer_d2h_h2d:
            self._d2h_stream = torch.cuda.Stream()
            self._h2d_stream = torch.cuda.Stream()
        else:
            self._d2h_stream = torch.cuda.current_stream()
            self._h2d_stream = torch.cuda.current_stream()

        for cpu_optimizer in self.cpu_optimizers:
            cpu_optimizer.register_step_post_hook(self._param_copy_back_hook)
        logger.info(
            "HybridDeviceOptimizer: %d host sub-optimizers, device optimizer %s",
            len(self.cpu_optimizers),
            "enabled" if self.gpu_optimizer is not None else "disabled",
        )

    def _param_copy_back_hook(self, optimizer, args, kwargs) -> None:
        self._h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._h2d_stream):
            copy_params_to_device(optimizer, self.cpu_copy_to_gpu_param)
        torch.cuda.current_stream().wait_stream(self._h2d_stream)

    def _set_sub_optimizer_grads(self) -> None:
        for cpu_optimizer in self.cpu_optimizers:
            stage_grads_on_host(cpu_optimizer, self.cpu_copy_to_gpu_param, self._host_grads, self.config.pin_cpu_grads)
            if self.config.overlap_cpu_optimizer_d2h_h2d:
                self._d2h_events[cpu_optimizer] = self._d2h_stream.record_event()

    def _sync_param_groups(self) -> None:
        for optimizer in self.cpu_optimizers + ([self.gpu_optimizer] if self.gpu_optimizer else []):
            for group in optimizer.param_groups:
                group["lr"] = self.param_groups[0]["lr"]
                group["weight_decay"] = self.param_groups[0].get("weight_decay", 0.0)

    @torch.no_grad()
    def step(self, closure=None):
        self._sync_param_groups()

        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._d2h_stream):
            self._set_sub_optimizer_grads()

        if self.gpu_optimizer is not None:
            self.gpu_optimizer.step(closure)

        for cpu_optimizer in self.cpu_optimizers:
            d2h_event = self._d2h_events.pop(cpu_optimizer, None)
            if d2h_event is not None:
                d2h_event.synchronize()
            # expect: KVG003
            cpu_optimizer.step(closure)

    def zero_grad(self, set_to_none: bool = True) -> None:
        super().zero_grad(set_to_none=set_to_none)
        for optimizer in self.cpu_optimizers:
            optimizer.zero_grad(set_to_none=set_to_none)
        if self.gpu_optimizer is not None:
            self.gpu_optimizer.zero_grad(set_to_none=set_to_none)
