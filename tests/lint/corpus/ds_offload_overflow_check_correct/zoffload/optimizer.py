"""ZeRO-Offload style optimizer: fp32 master weights and gradients live in pinned host memory
and the Adam step runs on the CPU (DeepSpeedCPUAdam). After backward the gradients are copied
to the host on a reduce stream so the copies overlap whatever the device does next."""

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.adam import DeepSpeedCPUAdam

from .utils import has_inf_or_nan, partition_sizes


class CPUOffloadOptimizer:
    def __init__(self, params, lr=1e-4, betas=(0.9, 0.999), weight_decay=0.0, initial_scale=2.0**16):
        accel = get_accelerator()
        self.params = [p for p in params if p.requires_grad]
        self.sizes = partition_sizes(self.params)
        numel = sum(self.sizes)
        self.fp32_master = accel.pin_memory(torch.empty(numel, dtype=torch.float32))
        self.fp32_grads = accel.pin_memory(torch.zeros(numel, dtype=torch.float32))
        offset = 0
        for p, n in zip(self.params, self.sizes):
            self.fp32_master.narrow(0, offset, n).copy_(p.detach().view(-1))
            offset += n
        self.fp32_master.grad = self.fp32_grads
        self.cpu_adam = DeepSpeedCPUAdam([self.fp32_master], lr=lr, betas=betas, weight_decay=weight_decay)
        self.reduce_stream = accel.Stream()
        self.loss_scale = initial_scale
        self.skipped_steps = 0

    def copy_grads_to_host(self):
        """Called right after backward, on the training thread."""
        accel = get_accelerator()
        self.reduce_stream.wait_stream(accel.current_stream())
        with accel.stream(self.reduce_stream):
            offset = 0
            for p, n in zip(self.params, self.sizes):
                self.fp32_grads.narrow(0, offset, n).copy_(p.grad.view(-1), non_blocking=True)
                p.grad.record_stream(self.reduce_stream)
                offset += n
        # the next forward may reuse the gradients' memory only once the copies have read it
        accel.current_stream().wait_stream(self.reduce_stream)
        for p in self.params:
            p.grad = None

    def step(self):
        if has_inf_or_nan(self.fp32_grads):
            self.loss_scale /= 2.0
            self.skipped_steps += 1
            self.fp32_grads.zero_()
            return False
        self.fp32_grads.mul_(1.0 / self.loss_scale)
        self.cpu_adam.step()
        offset = 0
        for p, n in zip(self.params, self.sizes):
            p.data.copy_(self.fp32_master.narrow(0, offset, n).view_as(p), non_blocking=True)
            offset += n
        return True
