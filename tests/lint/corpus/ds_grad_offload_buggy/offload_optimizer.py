"""Moves reduced fp16 gradients to pinned host memory on a side stream and
runs the optimizer step on the CPU."""

from typing import Dict, List

import torch
from deepspeed.accelerator import get_accelerator

from .constants import INITIAL_LOSS_SCALE, PIN_GRAD_BUFFERS
from .cpu_optimizer import DeepSpeedCPUAdamLite


class ZeroCPUOffloadOptimizer:
    def __init__(self, param_groups: List[List[torch.nn.Parameter]],
                 cpu_optimizer: DeepSpeedCPUAdamLite):
        self.param_groups = param_groups
        self.cpu_optimizer = cpu_optimizer
        self.loss_scale = INITIAL_LOSS_SCALE
        self.offload_stream = get_accelerator().Stream()
        self.fp32_master: List[torch.Tensor] = []
        self.cpu_grad_buffers: List[torch.Tensor] = []
        for group in param_groups:
            flat = torch.cat([p.detach().float().view(-1).cpu() for p in group])
            self.fp32_master.append(flat)
            grad_buf = torch.zeros(flat.numel(), dtype=torch.float16)
            if PIN_GRAD_BUFFERS:
                grad_buf = get_accelerator().pin_memory(grad_buf)
            self.cpu_grad_buffers.append(grad_buf)
        self._grad_events: Dict[int, object] = {}

    def offload_grads(self, gid: int) -> None:
        """Backward hook: group `gid` has its reduced fp16 grads on the GPU."""
        group = self.param_groups[gid]
        self.offload_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.offload_stream):
            offset = 0
            for p in group:
                n = p.grad.numel()
                self.cpu_grad_buffers[gid][offset:offset + n].copy_(
                    p.grad.view(-1), non_blocking=True)
                offset += n
            done = get_accelerator().Event()
            done.record(self.offload_stream)
        self._grad_events[gid] = done
        for p in group:
            p.grad.record_stream(self.offload_stream)
            p.grad = None

    def _wait_for_grads(self, gid: int) -> None:
        done = self._grad_events.pop(gid, None)
        if done is not None:
            get_accelerator().current_stream().wait_event(done)

    def step(self) -> None:
        for gid in range(len(self.param_groups)):
            self._wait_for_grads(gid)
            # expect: KVG003
            grad32 = self.cpu_grad_buffers[gid].float().div_(self.loss_scale)
            self.cpu_optimizer.step_group(gid, self.fp32_master[gid], grad32)
            self._copy_master_to_params(gid)

    def _copy_master_to_params(self, gid: int) -> None:
        offset = 0
        master = self.fp32_master[gid]
        for p in self.param_groups[gid]:
            n = p.numel()
            # blocking H2D: master is mutated again by the next step
            p.data.copy_(master[offset:offset + n].view_as(p.data))
            offset += n
