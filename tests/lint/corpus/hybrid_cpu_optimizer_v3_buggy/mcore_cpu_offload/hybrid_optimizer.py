from collections import defaultdict
from typing import Dict, List

import torch

from .config import HybridOptimizerConfig
from .grad_utils import host_grad_norm, report_grad_norm
from .streams import build_transfer_streams


def _param_generator(cpu_optimizer: torch.optim.Optimizer):
    for group in cpu_optimizer.param_groups:
        for param in group["params"]:
            yield param


class HybridDeviceOptimizer(torch.optim.Optimizer):
    """Updates a fraction of the parameters on the host, the rest on the device."""

    def __init__(self, params, config: HybridOptimizerConfig, cpu_optimizer_cls=None, gpu_optimizer_cls=None,
                 **kwargs) -> None:
        super().__init__(params, defaults=dict(kwargs))
        self.config = config
        self.cpu_optimizer_cls = cpu_optimizer_cls
        self.gpu_optimizer_cls = gpu_optimizer_cls
        self._step_count = 0
        self._init_sub_optimizers()

    @property
    def sub_optimizers(self) -> List[torch.optim.Optimizer]:
        if self.gpu_optimizer is not None:
            return self.cpu_optimizers + [self.gpu_optimizer]
        return self.cpu_optimizers

    def _init_sub_optimizers(self) -> None:
        self.cpu_copys_map_gpu_param: Dict[torch.Tensor, torch.Tensor] = {}
        gpu_numel = sum(p.numel() for g in self.param_groups for p in g["params"] if p.is_cuda)
        offload_threshold = gpu_numel * self.config.offload_fraction
        offloaded = 0
        cpu_groups, gpu_groups = [], []
        for group in self.param_groups:
            cpu_group = {**group, "params": []}
            gpu_group = {**group, "params": []}
            for param in group["params"]:
                if offloaded < offload_threshold and param.is_cuda:
                    cpu_param = param.detach().clone().cpu()
                    if self.config.pin_cpu_params:
                        cpu_param = cpu_param.pin_memory()
                    self.cpu_copys_map_gpu_param[cpu_param] = param
                    cpu_group["params"].append(cpu_param)
                    offloaded += param.numel()
                else:
                    gpu_group["params"].append(param)
            for sub_group, dest in ((cpu_group, cpu_groups), (gpu_group, gpu_groups)):
                if sub_group["params"]:
                    dest.append(sub_group)

        if self.config.overlap_cpu_optimizer_d2h_h2d:
            self.cpu_optimizers = [
                self.cpu_optimizer_cls([{**g, "params": [p]}]) for g in cpu_groups for p in g["params"]
            ]
        else:
            self.cpu_optimizers = [self.cpu_optimizer_cls(cpu_groups)] if cpu_groups else []
        self.gpu_optimizer = self.gpu_optimizer_cls(gpu_groups) if gpu_groups else None

        self.cpu_copy_map_grad: Dict[torch.Tensor, torch.Tensor] = defaultdict(torch.Tensor)
        self._d2h_stream, self._h2d_stream = build_transfer_streams(self.config.overlap_cpu_optimizer_d2h_h2d)
        self._cpu_optimizer_map_data_event: Dict[torch.optim.Optimizer, torch.cuda.Event] = {}
        self._register_param_copy_back_gpu_hook()

    def _set_sub_optimizer_grads(self) -> None:
        for optimizer in self.cpu_optimizers:
            for param in _param_generator(optimizer):
                gpu_param = self.cpu_copys_map_gpu_param[param]
                grad = getattr(gpu_param, "main_grad", gpu_param.grad)
                if grad is None:
                    param.grad = None
                    continue
                if param not in self.cpu_copy_map_grad:
                    self.cpu_copy_map_grad[param] = torch.empty(
                        param.shape, dtype=param.dtype, pin_memory=self.config.pin_cpu_grads, device="cpu"
                    )
                param.grad = self.cpu_copy_map_grad[param]
                param.grad.data.copy_(grad, non_blocking=True)
            self._cpu_optimizer_map_data_event[optimizer] = self._d2h_stream.record_event()

    def _register_param_copy_back_gpu_hook(self) -> None:
        def param_copy_back_gpu_hook(optimizer, args, kwargs):
            self._h2d_stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self._h2d_stream):
                for param in _param_generator(optimizer):
                    self.cpu_copys_map_gpu_param[param].data.copy_(param.data, non_blocking=True)
            self._h2d_stream.record_event().wait(torch.cuda.current_stream())

        for optimizer in self.cpu_optimizers:
            optimizer.register_step_post_hook(param_copy_back_gpu_hook)

    def _sync_hdo_param_groups_to_sub_optimizers(self) -> None:
        hyper = {k: v for k, v in self.param_groups[0].items() if k != "params"}
        for optimizer in self.sub_optimizers:
            for group in optimizer.param_groups:
                group.update(hyper)

    def _host_grads_are_finite(self) -> bool:
        grads = [p.grad for opt in self.cpu_optimizers for p in _param_generator(opt) if p.grad is not None]
        norm, finite = host_grad_norm(grads)
        if self.config.log_grad_norm:
            report_grad_norm(self._step_count, norm)
        return finite

    @torch.no_grad()
    def step(self, closure=None):
        self._step_count += 1
        self._sync_hdo_param_groups_to_sub_optimizers()

        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._d2h_stream):
            self._set_sub_optimizer_grads()

        if self.gpu_optimizer is not None:
            self.gpu_optimizer.step(closure)

        if self.config.check_for_nan_in_grad:
            if not self._host_grads_are_finite():
                self._cpu_optimizer_map_data_event.clear()
                return None

        for cpu_optimizer in self.cpu_optimizers:
            d2h_event = self._cpu_optimizer_map_data_event.pop(cpu_optimizer, None)
            if d2h_event is not None:
                d2h_event.synchronize()
            cpu_optimizer.step(closure)
        return None
