from typing import Dict

import torch

from .grad_utils import clip_cpu_grads_


def _params_of(optimizer):
    for group in optimizer.param_groups:
        yield from group["params"]


class HybridDeviceOptimizer(torch.optim.Optimizer):
    def __init__(
        self,
        params,
        cpu_optimizer_cls,
        gpu_optimizer_cls,
        offload_fraction: float = 0.5,
        max_grad_norm: float = 1.0,
        overlap_d2h_h2d: bool = True,
        **optim_kwargs,
    ):
        super().__init__(params, defaults=dict(offload_fraction=offload_fraction, **optim_kwargs))
        self.max_grad_norm = max_grad_norm
        self._gpu_params, self._cpu_copies, self._cpu_to_gpu = self._split(offload_fraction)
        # One CPU optimizer per offloaded tensor so that each can start as soon as its grad landed.
        self.cpu_optimizers = [cpu_optimizer_cls([p], **optim_kwargs) for p in self._cpu_copies]
        self.gpu_optimizer = gpu_optimizer_cls(self._gpu_params, **optim_kwargs) if self._gpu_params else None

        self._pinned_grads: Dict[torch.Tensor, torch.Tensor] = {}
        self._d2h_done: Dict[torch.optim.Optimizer, torch.cuda.Event] = {}
        if overlap_d2h_h2d:
            self._d2h_stream = torch.cuda.Stream()
            self._h2d_stream = torch.cuda.Stream()
        else:
            self._d2h_stream = torch.cuda.current_stream()
            self._h2d_stream = torch.cuda.current_stream()

    def _split(self, offload_fraction):
        params = [p for group in self.param_groups for p in group["params"]]
        budget = offload_fraction * sum(p.numel() for p in params if p.is_cuda)
        gpu_params, cpu_copies, cpu_to_gpu = [], [], {}
        offloaded = 0
        for p in params:
            if p.is_cuda and offloaded < budget:
                cpu_copy = p.detach().float().cpu().pin_memory()
                cpu_copies.append(cpu_copy)
                cpu_to_gpu[cpu_copy] = p
                offloaded += p.numel()
            else:
                gpu_params.append(p)
        return gpu_params, cpu_copies, cpu_to_gpu

    def _stage_grads(self):
        """Issue the D2H copies of the offloaded grads; called on the D2H stream."""
        for optimizer in self.cpu_optimizers:
            for cpu_param in _params_of(optimizer):
                grad = self._cpu_to_gpu[cpu_param].grad
                if grad is None:
                    cpu_param.grad = None
                    continue
                pinned = self._pinned_grads.get(cpu_param)
                if pinned is None:
                    pinned = torch.empty(cpu_param.shape, dtype=cpu_param.dtype, pin_memory=True)
                    self._pinned_grads[cpu_param] = pinned
                pinned.copy_(grad, non_blocking=True)
                cpu_param.grad = pinned
            self._d2h_done[optimizer] = self._d2h_stream.record_event()

    def _copy_params_back(self):
        self._h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._h2d_stream):
            for cpu_param, gpu_param in self._cpu_to_gpu.items():
                gpu_param.data.copy_(cpu_param, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self._h2d_stream)

    @torch.no_grad()
    def step(self, closure=None):
        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._d2h_stream):
            self._stage_grads()

        if self.gpu_optimizer is not None:
            self.gpu_optimizer.step()

        # The offloaded half is clipped on the host, with its own norm.
        grad_norm = clip_cpu_grads_(self._pinned_grads.values(), self.max_grad_norm)

        for optimizer in self.cpu_optimizers:
            done = self._d2h_done.pop(optimizer, None)
            if done is not None:
                done.synchronize()
            optimizer.step()

        self._copy_params_back()
        return grad_norm
