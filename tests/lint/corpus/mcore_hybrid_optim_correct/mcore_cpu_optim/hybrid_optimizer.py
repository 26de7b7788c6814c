# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from typing import Iterable, List, Type

import torch
from cuda.bindings import driver

from .streams import DriverStream, check, torch_current_stream
from .transfer import copy_grads_to_host, copy_params_to_device

logger = logging.getLogger(__name__)


class HybridDeviceOptimizer(torch.optim.Optimizer):
    """
    Runs the optimizer step for the fp32 main-parameter shards on the host. Grads are
    pulled to pinned memory, the CPU optimizer updates pinned master copies, and the
    results are pushed back into the device shards.
    """

    def __init__(self, params: Iterable[torch.nn.Parameter],
                 cpu_optimizer_cls: Type[torch.optim.Optimizer] = torch.optim.AdamW, **optimizer_kwargs):
        params = list(params)
        super().__init__(params, defaults=dict(optimizer_kwargs))
        self.gpu_params: List[torch.Tensor] = [p for p in params if p.requires_grad]
        self.cpu_masters: List[torch.Tensor] = []
        self.cpu_grads: List[torch.Tensor] = []
        for p in self.gpu_params:
            master = torch.empty(p.shape, dtype=torch.float32, pin_memory=True)
            master.copy_(p.detach())
            self.cpu_masters.append(master.requires_grad_(True))
            self.cpu_grads.append(torch.empty_like(master, pin_memory=True))
        self.cpu_optimizer = cpu_optimizer_cls(self.cpu_masters, **optimizer_kwargs)
        self._d2h = DriverStream("hybrid_d2h")
        self._h2d = DriverStream("hybrid_h2d")
        logger.info(f"HybridDeviceOptimizer offloads {sum(m.numel() for m in self.cpu_masters)} elements")

    def _main_grads(self) -> List[torch.Tensor]:
        return [getattr(p, "main_grad", None) if getattr(p, "main_grad", None) is not None else p.grad
                for p in self.gpu_params]

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        compute = torch_current_stream()
        backward_done = self._d2h.record_on(compute)

        self._d2h.wait(backward_done)
        copy_grads_to_host(self._main_grads(), self.cpu_grads, self._d2h.handle)
        grads_on_host = self._d2h.record()
        check(driver.cuEventSynchronize(grads_on_host), "cuEventSynchronize(grads)")

        for master, grad in zip(self.cpu_masters, self.cpu_grads):
            master.grad = grad
        self.cpu_optimizer.step()

        self._h2d.wait(backward_done)
        copy_params_to_device(self.cpu_masters, self.gpu_params, self._h2d.handle)
        params_on_device = self._h2d.record()
        check(driver.cuStreamWaitEvent(compute, params_on_device, 0), "cuStreamWaitEvent(compute)")
        return loss

    def zero_grad(self, set_to_none: bool = True):
        for p in self.gpu_params:
            if getattr(p, "main_grad", None) is not None:
                p.main_grad.zero_()
            elif p.grad is not None:
                p.grad = None if set_to_none else p.grad.zero_()

    def state_dict(self):
        return self.cpu_optimizer.state_dict()

    def load_state_dict(self, state_dict):
        self.cpu_optimizer.load_state_dict(state_dict)
