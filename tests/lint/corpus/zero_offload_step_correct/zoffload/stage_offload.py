"""Stage-2 style optimizer wrapper that keeps fp32 master weights and Adam state on the host."""
from __future__ import annotations

import logging
from typing import Iterable

import torch

from .config import AdamConfig, OffloadDeviceEnum, ZeroConfig
from .cpu_adam import DeepSpeedCPUAdam
from .partition import (
    async_copy_grad_to_cpu,
    async_copy_params_to_device,
    flatten_dense_tensors_aligned,
    link_params_to_flat,
)

logger = logging.getLogger(__name__)

NCCL_ALIGNMENT = 64


class ZeroOffloadOptimizer:
    def __init__(self, params: Iterable[torch.nn.Parameter], zero_config: ZeroConfig, adam_config: AdamConfig):
        self.zero_config = zero_config
        self.overlap_comm = zero_config.overlap_comm
        self.cpu_offload = zero_config.offload_optimizer.device == OffloadDeviceEnum.cpu
        if not self.cpu_offload:
            raise ValueError("ZeroOffloadOptimizer requires offload_optimizer.device == 'cpu'")
        self.gradient_predivide_factor = zero_config.gradient_predivide_factor
        self.device = torch.device("cuda", torch.cuda.current_device())
        pin = zero_config.offload_optimizer.pin_memory

        self.bit16_groups = [[p for p in params if p.requires_grad]]
        self.bit16_groups_flat: list[torch.Tensor] = []
        self.single_partition_of_fp32_groups: list[torch.Tensor] = []
        self.grad_partitions_cpu: list[torch.Tensor] = []
        self.bit16_staging: list[torch.Tensor] = []
        self.grad_position: dict[int, tuple[int, int]] = {}

        for i, group in enumerate(self.bit16_groups):
            flat = flatten_dense_tensors_aligned([p.detach() for p in group], NCCL_ALIGNMENT)
            link_params_to_flat(group, flat)
            self.bit16_groups_flat.append(flat)
            fp32 = torch.empty(flat.numel(), dtype=torch.float32, pin_memory=pin)
            fp32.copy_(flat)
            self.single_partition_of_fp32_groups.append(fp32)
            self.grad_partitions_cpu.append(torch.zeros(flat.numel(), dtype=flat.dtype, pin_memory=pin))
            self.bit16_staging.append(torch.empty(flat.numel(), dtype=flat.dtype, pin_memory=pin))
            offset = 0
            for p in group:
                self.grad_position[id(p)] = (i, offset)
                offset += p.numel()

        self.optimizer = DeepSpeedCPUAdam(adam_config)
        self.reduction_stream = torch.cuda.Stream() if self.overlap_comm else torch.cuda.current_stream()
        self.param_copy_stream = torch.cuda.Stream()

        bucket_numel = min(zero_config.reduce_bucket_size, max(f.numel() for f in self.bit16_groups_flat))
        self.ipg_buffer = torch.empty(bucket_numel, dtype=self.bit16_groups_flat[0].dtype, device=self.device)
        self.elements_in_ipg_bucket = 0
        self.params_in_ipg_bucket: list[tuple[torch.nn.Parameter, int]] = []
        self._param_norm: torch.Tensor | None = None

        for group in self.bit16_groups:
            for p in group:
                p.register_post_accumulate_grad_hook(self.reduce_ready_partitions_and_remove_grads)

    @property
    def param_norm(self) -> torch.Tensor | None:
        return self._param_norm

    # ------------------------------------------------------------------ gradients
    def reduce_ready_partitions_and_remove_grads(self, param):
        numel = param.numel()
        if self.elements_in_ipg_bucket + numel > self.ipg_buffer.numel():
            self.reduce_ipg_grads()
        dest = self.ipg_buffer.narrow(0, self.elements_in_ipg_bucket, numel)
        dest.copy_(param.grad.detach().view(-1))
        self.params_in_ipg_bucket.append((param, self.elements_in_ipg_bucket))
        self.elements_in_ipg_bucket += numel
        param.grad = None

    def reduce_ipg_grads(self):
        if not self.params_in_ipg_bucket:
            return
        self.average_tensor(self.ipg_buffer.narrow(0, 0, self.elements_in_ipg_bucket))
        if self.overlap_comm:
            # the bucket is refilled on the compute stream
            torch.cuda.current_stream().wait_stream(self.reduction_stream)
        self.params_in_ipg_bucket.clear()
        self.elements_in_ipg_bucket = 0

    def average_tensor(self, tensor):
        if self.overlap_comm:
            stream = self.reduction_stream
            stream.wait_stream(torch.cuda.current_stream())
        else:
            stream = torch.cuda.current_stream()

        with torch.cuda.stream(stream):
            for param, src_offset in self.params_in_ipg_bucket:
                group_idx, dest_offset = self.grad_position[id(param)]
                async_copy_grad_to_cpu(
                    self.grad_partitions_cpu[group_idx], tensor, dest_offset, src_offset, param.numel()
                )

    # ------------------------------------------------------------------ step
    def backward(self, loss):
        loss.backward()
        self.reduce_ipg_grads()

    def _compute_param_norm(self) -> torch.Tensor:
        total = torch.zeros((), dtype=torch.float32, device=self.device)
        for flat in self.bit16_groups_flat:
            total.add_(flat.float().pow(2).sum())
        return total.sqrt_()

    @torch.no_grad()
    def step(self):
        self.reduce_ipg_grads()
        # host Adam reads the pinned gradient partitions
        self.reduction_stream.synchronize()
        self._param_norm = self._compute_param_norm()

        for i, fp32_partition in enumerate(self.single_partition_of_fp32_groups):
            self.optimizer.step_partition(
                i, fp32_partition, self.grad_partitions_cpu[i], grad_scale=1.0 / self.gradient_predivide_factor
            )
            self.bit16_staging[i].copy_(fp32_partition)

        self.param_copy_stream.wait_stream(torch.cuda.current_stream())
        self._copy_updated_params_to_device()

    def _copy_updated_params_to_device(self):
        with torch.cuda.stream(self.param_copy_stream):
            for device_flat, host_flat in zip(self.bit16_groups_flat, self.bit16_staging):
                async_copy_params_to_device(device_flat, host_flat)
        torch.cuda.current_stream().wait_stream(self.param_copy_stream)
