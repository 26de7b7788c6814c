import logging
from typing import Dict, List, Optional

import torch

from .config import CPUOffloadOptimizerConfig
from .grad_staging import host_grads_are_finite, iter_params, stage_grads_to_host
from .param_sync import make_param_copy_back_hook

logger = logging.getLogger(__name__)


class HybridDeviceOptimizer(torch.optim.Optimizer):
    """
    Updates a fraction of the parameters with a CPU optimizer and the rest with a GPU optimizer.
    Gradients of CPU-updated parameters are staged into host buffers, the CPU optimizers step on
    them, and a post-hook copies the updated parameters back to the device.
    """

    def __init__(self, params, config: CPUOffloadOptimizerConfig, cpu_optimizer_cls, gpu_optimizer_cls, **kwargs):
        super().__init__(params, defaults=dict(kwargs))
        self.config = config
        self.cpu_optimizer_cls = cpu_optimizer_cls
        self.gpu_optimizer_cls = gpu_optimizer_cls
        self.sub_optimizer_kwargs = kwargs

        self.gpu_params_map_cpu_copy: Dict[torch.Tensor, torch.Tensor] = {}
        self.cpu_copys_map_gpu_param: Dict[torch.Tensor, torch.Tensor] = {}
        self.cpu_copy_map_grad: Dict[torch.Tensor, torch.Tensor] = {}
        self._d2h_events: Dict[torch.optim.Optimizer, torch.cuda.Event] = {}

        cpu_params, gpu_params = self._split_params(config.offload_fraction)
        self.cpu_optimizers: List[torch.optim.Optimizer] = [
            cpu_optimizer_cls([p], **kwargs) for p in cpu_params
        ]
        self.gpu_optimizer: Optional[torch.optim.Optimizer] = (
            gpu_optimizer_cls(gpu_params, **kwargs) if gpu_params else None
        )

        self._d2h_stream = torch.cuda.current_stream()
        self._h2d_stream = torch.cuda.current_stream()
        if config.overlap_cpu_optimizer_d2h_h2d:
            self._d2h_stream = torch.cuda.Stream()
            self._h2d_stream = torch.cuda.Stream()

        hook = make_param_copy_back_hook(self._h2d_stream, self.cpu_copys_map_gpu_param)
        for optimizer in self.cpu_optimizers:
            optimizer.register_step_post_hook(hook)

    def _split_params(self, offload_fraction: float):
        params = [p for group in self.param_groups for p in group["params"]]
        threshold = sum(p.numel() for p in params if p.is_cuda) * offload_fraction
        offloaded = 0
        cpu_params, gpu_params = [], []
        for param in params:
            if offloaded < threshold and param.is_cuda:
                cpu_copy = param.detach().clone().cpu()
                if self.config.pin_cpu_params:
                    cpu_copy = cpu_copy.pin_memory()
                offloaded += param.numel()
                self.gpu_params_map_cpu_copy[param] = cpu_copy
                self.cpu_copys_map_gpu_param[cpu_copy] = param
                cpu_params.append(cpu_copy)
            else:
                gpu_params.append(param)
        logger.info("HybridDeviceOptimizer: %d params updated on CPU, %d on GPU", len(cpu_params), len(gpu_params))
        return cpu_params, gpu_params

    def _wait_host_grads(self, optimizer: torch.optim.Optimizer) -> None:
        event = self._d2h_events.pop(optimizer, None)
        if event is not None:
            event.synchronize()

    def _host_grads(self) -> List[torch.Tensor]:
        return [p.grad for opt in self.cpu_optimizers for p in iter_params(opt) if p.grad is not None]

    @torch.no_grad()
    def step(self, closure=None):
        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._d2h_stream):
            self._d2h_events = stage_grads_to_host(
                self.cpu_optimizers,
                self.cpu_copys_map_gpu_param,
                self.cpu_copy_map_grad,
                self.config.pin_cpu_grads,
            )

        if self.gpu_optimizer is not None:
            self.gpu_optimizer.step(closure)

        if self.config.check_for_nan_in_grad:
            for cpu_optimizer in self.cpu_optimizers:
                self._wait_host_grads(cpu_optimizer)
            if not host_grads_are_finite(self._host_grads()):
                raise RuntimeError("Rank has NaN or Inf in the offloaded gradients")

        for cpu_optimizer in self.cpu_optimizers:
            self._wait_host_grads(cpu_optimizer)
            cpu_optimizer.step(closure)
