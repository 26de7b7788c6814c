# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List

import torch
import torch.distributed as dist

from zero_offload.config import DeepSpeedZeroOffloadOptimizerConfig
from zero_offload.cpu_adam import CPUAdamKernel
from zero_offload.pinned_buffers import PinnedGradPartition

logger = logging.getLogger(__name__)


class DeepSpeedZeroOffloadOptimizer:
    def __init__(self, params: List[torch.nn.Parameter], config: DeepSpeedZeroOffloadOptimizerConfig, dp_process_group=None):
        self.config = config
        self.params = [p for p in params if p.requires_grad]
        self.dp_process_group = dp_process_group
        self.dp_world_size = dist.get_world_size(group=dp_process_group)
        self.reduction_stream = torch.cuda.Stream() if config.overlap_comm else torch.cuda.current_stream()
        self.offload_stream = torch.cuda.Stream()
        self.offload_done = torch.cuda.Event()

        self.param_offsets: Dict[int, int] = {}
        total = 0
        for p in self.params:
            self.param_offsets[id(p)] = total
            total += p.numel()
        self.fp32_partition = torch.cat([p.detach().float().cpu().view(-1) for p in self.params])
        self.exp_avg = torch.zeros_like(self.fp32_partition)
        self.exp_avg_sq = torch.zeros_like(self.fp32_partition)
        self.grad_partition = PinnedGradPartition(total, self.params[0].dtype, config.pin_memory)
        self.cpu_adam = CPUAdamKernel(config.betas, config.eps, config.weight_decay)
        self.executor = ThreadPoolExecutor(max_workers=config.cpu_adam_threads, thread_name_prefix="ds_cpu_adam")
        chunk = (total + config.cpu_adam_threads - 1) // config.cpu_adam_threads
        self.ranges = [(s, min(s + chunk, total)) for s in range(0, total, chunk)]
        self.ipg_bucket: List[torch.nn.Parameter] = []
        self.elements_in_ipg_bucket = 0
        self.step_count = 0

    def reduce_ready_partitions_and_remove_grads(self, param: torch.nn.Parameter) -> None:
        if self.elements_in_ipg_bucket + param.numel() > self.config.reduce_bucket_size:
            self.reduce_ipg_grads()
        self.ipg_bucket.append(param)
        self.elements_in_ipg_bucket += param.numel()

    def reduce_ipg_grads(self) -> None:
        if not self.ipg_bucket:
            return
        if self.config.overlap_comm:
            self.reduction_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.reduction_stream):
            for p in self.ipg_bucket:
                p.grad.div_(self.dp_world_size)
                dist.all_reduce(p.grad, group=self.dp_process_group)
        self._offload_bucket(self.ipg_bucket)
        self.ipg_bucket = []
        self.elements_in_ipg_bucket = 0

    def _offload_bucket(self, bucket: List[torch.nn.Parameter]) -> None:
        self.offload_stream.wait_stream(self.reduction_stream)
        with torch.cuda.stream(self.offload_stream):
            for p in bucket:
                self.grad_partition.async_copy_from(p.grad, self.param_offsets[id(p)])
                p.grad.record_stream(self.offload_stream)
            self.offload_done.record(self.offload_stream)
        for p in bucket:
            p.grad = None

    def _clip_coef(self, total_norm: float) -> float:
        clip = self.config.gradient_clipping
        if clip <= 0.0 or total_norm <= 0.0:
            return 1.0
        return max(1.0, total_norm / clip)

    def step(self, lr: float) -> None:
        self.reduce_ipg_grads()
        self.offload_done.synchronize()
        total_norm = -1.0
        if self.config.gradient_clipping > 0.0:
            total_norm = self.grad_partition.global_norm()
            if total_norm < 0:
                logger.warning("Overflow in gradients, skipping step %d", self.step_count)
                return
        self.step_count += 1
        scale = self._clip_coef(total_norm)
        futures = [
            self.executor.submit(self.cpu_adam.step_range, self.step_count, lr, self.fp32_partition,
                                 self.grad_partition.buffer, self.exp_avg, self.exp_avg_sq, s, e, scale)
            for s, e in self.ranges
        ]
        for f in futures:
            f.result()
        for p in self.params:
            off = self.param_offsets[id(p)]
            p.data.copy_(self.fp32_partition.narrow(0, off, p.numel()).view_as(p))
