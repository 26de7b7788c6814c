"""The offloading optimizer wrapper: gradient hooks, the ipg bucket, pinned fp32 buffers and the
host step."""

from contextlib import ExitStack

import torch
from deepspeed.accelerator import get_accelerator

from .config import ZeroOffloadConfig
from .cpu_adam import HostAdam


class ZeroCPUOffloadOptimizer:
    def __init__(self, params, config: ZeroOffloadConfig):
        self.config = config
        self.accel = get_accelerator()
        self.device = torch.device(self.accel.current_device_name())
        self.params = [p for p in params if p.requires_grad]
        self.reduction_stream = self.accel.Stream()
        self.ipg_buffer = torch.empty(config.reduce_bucket_size, dtype=config.grad_dtype, device=self.device)
        self.ipg_index = 0
        self.params_in_ipg_bucket = []
        self.fp32_params, self.fp32_grads = [], []
        for p in self.params:
            master = p.detach().to("cpu", dtype=torch.float32).view(-1)
            grad_buf = torch.zeros(p.numel(), dtype=torch.float32, device="cpu")
            if config.pin_memory:
                master, grad_buf = master.pin_memory(), grad_buf.pin_memory()
            self.fp32_params.append(master)
            self.fp32_grads.append(grad_buf)
        self.param_index = {id(p): i for i, p in enumerate(self.params)}
        self.adam = HostAdam([p.numel() for p in self.params], config.lr, config.betas,
                             config.eps, config.weight_decay)
        for p in self.params:
            p.register_post_accumulate_grad_hook(self._reduce_ready_partitions_and_remove_grads)

    def _reduce_ready_partitions_and_remove_grads(self, param):
        numel = param.numel()
        if self.ipg_index + numel > self.config.reduce_bucket_size:
            self.reduce_ipg_grads()
        grad = param.grad
        if self.config.gradient_predivide_factor != 1.0:
            grad.div_(self.config.gradient_predivide_factor)
        self.ipg_buffer.narrow(0, self.ipg_index, numel).copy_(grad.view(-1))
        self.params_in_ipg_bucket.append((self.param_index[id(param)], self.ipg_index, numel))
        self.ipg_index += numel
        param.grad = None

    def reduce_ipg_grads(self):
        with ExitStack() as stack:
            if self.config.overlap_comm:
                # the bucket was filled on the compute stream by the gradient hooks
                self.reduction_stream.wait_stream(self.accel.current_stream())
                stack.enter_context(self.accel.stream(self.reduction_stream))
            for idx, offset, numel in self.params_in_ipg_bucket:
                self.fp32_grads[idx].copy_(self.ipg_buffer.narrow(0, offset, numel), non_blocking=True)
        if self.config.overlap_comm:
            # the bucket is refilled on the compute stream: not before the flush has read it
            self.accel.current_stream().wait_stream(self.reduction_stream)
        self.params_in_ipg_bucket = []
        self.ipg_index = 0

    def step(self):
        if self.params_in_ipg_bucket:
            self.reduce_ipg_grads()
        if self.config.overlap_comm:
            self.reduction_stream.synchronize()
        else:
            self.accel.current_stream().synchronize()
        self.adam.step(self.fp32_params, self.fp32_grads)
        for p, master in zip(self.params, self.fp32_params):
            p.data.copy_(master.view_as(p), non_blocking=True)

    def zero_grad(self):
        for buf in self.fp32_grads:
            buf.zero_()
