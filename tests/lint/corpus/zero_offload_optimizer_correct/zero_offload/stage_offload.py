"""ZeRO-Offload: fp32 master partition and Adam step on the host."""

import numpy as np
import torch
import torch.distributed as dist
from deepspeed.accelerator import get_accelerator
from deepspeed.ops.adam import DeepSpeedCPUAdam
from deepspeed.utils import logger

from .config import OffloadOptimizerConfig
from .partitions import GradPartitionBuffers


class ZeroOffloadOptimizer:

    def __init__(self, module, config: OffloadOptimizerConfig, lr=1e-3, dp_process_group=None):
        self.config = config
        self.dp_process_group = dp_process_group
        self.dp_world_size = dist.get_world_size(group=dp_process_group)
        self.device = get_accelerator().current_device_name()

        self.bit16_params = [p for p in module.parameters() if p.requires_grad]
        total_numel = sum(p.numel() for p in self.bit16_params)
        self.fp32_partition = torch.empty(total_numel, dtype=torch.float32, device="cpu")
        self.grad_partitions = GradPartitionBuffers([total_numel], pin_memory=config.pin_memory)

        offset = 0
        for param in self.bit16_params:
            self.fp32_partition.narrow(0, offset, param.numel()).copy_(param.detach().view(-1).float())
            self.grad_partitions.register(id(param), 0, offset, param.numel())
            offset += param.numel()
        self.fp32_partition.grad = self.grad_partitions.group(0)

        self.reduction_stream = get_accelerator().Stream()
        self.ipg_buffer = torch.empty(config.reduce_bucket_size, dtype=torch.float32, device=self.device)
        self.ipg_bucket = []
        self.elements_in_ipg_bucket = 0

        self.optimizer = DeepSpeedCPUAdam([self.fp32_partition], lr=lr)
        self.loss_scale = config.initial_loss_scale
        self.overflow = False
        self._register_grad_hooks()

    def _register_grad_hooks(self):
        for param in self.bit16_params:
            param.register_post_accumulate_grad_hook(self._grad_ready)

    def _grad_ready(self, param):
        if self.elements_in_ipg_bucket + param.numel() > self.config.reduce_bucket_size:
            self.reduce_ipg_grads()
        self.ipg_bucket.append(param)
        self.elements_in_ipg_bucket += param.numel()

    @torch.no_grad()
    def reduce_ipg_grads(self):
        if not self.ipg_bucket:
            return
        # the previous bucket may still be draining out of ipg_buffer
        get_accelerator().current_stream().wait_stream(self.reduction_stream)

        flat = self.ipg_buffer.narrow(0, 0, self.elements_in_ipg_bucket)
        offset = 0
        for param in self.ipg_bucket:
            flat.narrow(0, offset, param.numel()).copy_(param.grad.view(-1))
            offset += param.numel()
        flat.mul_(1.0 / (self.dp_world_size * self.loss_scale))
        dist.all_reduce(flat, group=self.dp_process_group)

        self.reduction_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.reduction_stream):
            offset = 0
            for param in self.ipg_bucket:
                dest = self.grad_partitions.slot(id(param))
                dest.copy_(flat.narrow(0, offset, param.numel()), non_blocking=True)
                offset += param.numel()

        for param in self.ipg_bucket:
            param.grad = None
        self.ipg_bucket = []
        self.elements_in_ipg_bucket = 0

    def _has_overflow(self):
        grads = self.grad_partitions.group(0)
        local_overflow = not bool(np.isfinite(grads.numpy()).all())
        flag = torch.tensor([1.0 if local_overflow else 0.0], device=self.device)
        dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=self.dp_process_group)
        return flag.item() > 0

    @torch.no_grad()
    def _update_bit16_params(self):
        offset = 0
        for param in self.bit16_params:
            src = self.fp32_partition.narrow(0, offset, param.numel()).view_as(param)
            param.data.copy_(src)
            offset += param.numel()

    def step(self):
        self.reduce_ipg_grads()
        # host-side readers below need the grad partitions fully landed
        self.reduction_stream.synchronize()
        self.overflow = self._has_overflow()
        if self.overflow:
            logger.info(f"[deepspeed] OVERFLOW! Skipping step. Attempted loss scale: {self.loss_scale}")
            self.loss_scale = max(self.loss_scale / 2, 1.0)
            self.grad_partitions.zero_()
            return False
        self.optimizer.step()
        self.grad_partitions.zero_()
        self._update_bit16_params()
        return True
