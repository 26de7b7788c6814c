import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Optional, Type

import torch

from .config import CPUOffloadConfig
from .grad_transfer import offload_grads, reload_params
from .grad_utils import host_grad_norm_sq, host_grads_are_finite

logger = logging.getLogger(__name__)


class HybridDeviceOptimizer:
    """
    Keeps fp32 master parameters and optimizer state in host memory. Device
    gradients are copied to host group by group, each group is stepped on a
    CPU thread as soon as its copy lands, and the result is copied back.
    """

    def __init__(self, params: List[torch.nn.Parameter], config: CPUOffloadConfig,
                 cpu_optimizer_cls: Type[torch.optim.Optimizer] = torch.optim.AdamW, **optim_kwargs):
        self.config = config
        self.params = [p for p in params if p.requires_grad]
        self.gpu_to_cpu: Dict[torch.nn.Parameter, torch.Tensor] = {}
        for p in self.params:
            cpu_p = torch.empty(p.shape, dtype=p.dtype, pin_memory=config.pin_cpu_params)
            cpu_p.copy_(p.detach())
            cpu_p.grad = torch.zeros(p.shape, dtype=p.dtype, pin_memory=config.pin_cpu_grads)
            self.gpu_to_cpu[p] = cpu_p
        n = config.params_per_group
        self.groups = [self.params[i:i + n] for i in range(0, len(self.params), n)]
        self.cpu_optimizers = [
            cpu_optimizer_cls([self.gpu_to_cpu[p] for p in group], **optim_kwargs) for group in self.groups
        ]
        self._executor = ThreadPoolExecutor(max_workers=config.num_cpu_threads, thread_name_prefix="cpu-adam")
        self.last_grad_norm: Optional[float] = None

    def _cpu_grads(self):
        return [self.gpu_to_cpu[p].grad for p in self.params]

    def _step_group(self, idx: int, event: torch.cuda.Event) -> float:
        event.synchronize()
        grads = [self.gpu_to_cpu[p].grad for p in self.groups[idx]]
        norm_sq = host_grad_norm_sq(grads)
        self.cpu_optimizers[idx].step()
        return norm_sq

    @torch.no_grad()
    def step(self) -> bool:
        events = offload_grads(self.groups, self.gpu_to_cpu)

        if self.config.check_for_nan_in_grad and not host_grads_are_finite(self._cpu_grads()):
            logger.warning("skipping optimizer step: non-finite gradients")
            for event in events:
                event.synchronize()
            return False

        futures = [self._executor.submit(self._step_group, idx, ev) for idx, ev in enumerate(events)]
        self.last_grad_norm = sum(f.result() for f in futures) ** 0.5

        reload_params(self.groups, self.gpu_to_cpu)
        return True

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.params:
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def state_dict(self):
        return {"cpu_optimizers": [opt.state_dict() for opt in self.cpu_optimizers]}
