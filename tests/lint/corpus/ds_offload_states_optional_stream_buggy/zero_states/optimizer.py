import contextlib
import math

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.runtime.zero.offload_config import OffloadDeviceEnum, OffloadStateTypeEnum

from .offload_utils import host_buffer_like, move_to_device, move_to_host


class ZeroStage1Adam:
    """Holds this rank's flat fp32 partitions and their Adam moments, all on the device."""

    def __init__(self, fp32_partitions, lr=1e-5, betas=(0.9, 0.999), eps=1e-8):
        self.fp32_partitions = fp32_partitions
        self.exp_avg = [torch.zeros_like(p) for p in fp32_partitions]
        self.exp_avg_sq = [torch.zeros_like(p) for p in fp32_partitions]
        self.lr, self.betas, self.eps = lr, betas, eps
        self.step_count = 0
        self.device = get_accelerator().current_device_name()
        self.offloaded_states = set()
        self._host_buffers = {}
        self._offload_stream = get_accelerator().Stream()
        self._offload_done = get_accelerator().Event()

    @torch.no_grad()
    def step(self, grad_partitions):
        self.step_count += 1
        beta1, beta2 = self.betas
        step_size = self.lr * math.sqrt(1 - beta2**self.step_count) / (1 - beta1**self.step_count)
        for i, grad in enumerate(grad_partitions):
            self.exp_avg[i].mul_(beta1).add_(grad, alpha=1 - beta1)
            self.exp_avg_sq[i].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            denom = self.exp_avg_sq[i].sqrt().add_(self.eps)
            self.fp32_partitions[i].addcdiv_(self.exp_avg[i], denom, value=-step_size)

    def _tensors(self, state):
        if state == OffloadStateTypeEnum.hp_params:
            return self.fp32_partitions
        return self.exp_avg + self.exp_avg_sq

    def offload_states(self, include=None, device=OffloadDeviceEnum.cpu, pin_memory=True, non_blocking=False):
        assert device == OffloadDeviceEnum.cpu, "only CPU offload is supported"
        states = [OffloadStateTypeEnum.hp_params, OffloadStateTypeEnum.optim_states]
        # a non-blocking offload runs on a stream of its own so generation can start at once
        stream = self._offload_stream if non_blocking else None
        scope = get_accelerator().stream(stream) if stream is not None else contextlib.nullcontext()
        with scope:
            for state in states:
                if (include is not None and state not in include) or state in self.offloaded_states:
                    continue
                tensors = self._tensors(state)
                if state not in self._host_buffers:
                    self._host_buffers[state] = [host_buffer_like(t, pin_memory) for t in tensors]
                move_to_host(tensors, self._host_buffers[state], non_blocking, stream)
                self.offloaded_states.add(state)
        if stream is not None:
            self._offload_done.record(stream)

    def reload_states(self, non_blocking=False):
        # the host buffers are read by the reload: the offload copies must have landed
        get_accelerator().current_stream().wait_event(self._offload_done)
        for state in list(self.offloaded_states):
            move_to_device(self._tensors(state), self.device, non_blocking)
            self.offloaded_states.discard(state)
