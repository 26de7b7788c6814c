# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import List, Optional

import numpy as np
from numba import cuda

from .config import OffloadOptimizerConfig
from .cpu_adam import HostAdam
from .kernels import accumulate_grad, clear_grad, unscale_grad

logger = logging.getLogger(__name__)


@dataclass
class PartitionState:
    device_param16: object
    device_grad: object
    host_grad: np.ndarray
    host_param16: np.ndarray
    master: np.ndarray
    exp_avg: np.ndarray
    exp_avg_sq: np.ndarray
    copied: Optional[object] = None
    future: Optional[Future] = None


class NumbaOffloadOptimizer:
    """ZeRO-Offload style: gradients stream to pinned host memory and Adam runs on CPU workers."""

    def __init__(self, config: OffloadOptimizerConfig, partitions, compute_stream):
        self.config = config
        self.compute_stream = compute_stream
        self.swap_stream = cuda.stream()
        self.adam = HostAdam(config.lr, config.betas, config.eps, config.weight_decay, config.adamw_mode)
        self._executor = ThreadPoolExecutor(max_workers=config.cpu_workers, thread_name_prefix="cpu_adam")
        self.global_step = 0
        self.parts: List[PartitionState] = []
        for device_param16, device_grad in partitions:
            n = device_grad.size
            master = device_param16.copy_to_host().astype(np.float32)
            self.parts.append(PartitionState(
                device_param16=device_param16,
                device_grad=device_grad,
                host_grad=cuda.pinned_array(n, dtype=np.float32),
                host_param16=cuda.pinned_array(n, dtype=np.float16),
                master=master,
                exp_avg=np.zeros(n, dtype=np.float32),
                exp_avg_sq=np.zeros(n, dtype=np.float32),
            ))

    def accumulate(self, pid: int, micro_grad) -> None:
        accumulate_grad(self.parts[pid].device_grad, micro_grad, self.compute_stream)

    def reduce_and_offload(self, pid: int, loss_scale: float = 1.0) -> None:
        part = self.parts[pid]
        if loss_scale != 1.0:
            unscale_grad(part.device_grad, 1.0 / loss_scale, self.compute_stream)
        grads_ready = cuda.event(timing=False)
        grads_ready.record(self.compute_stream)
        grads_ready.wait(self.swap_stream)
        part.device_grad.copy_to_host(part.host_grad, stream=self.swap_stream)
        part.copied = cuda.event(timing=False)
        part.copied.record(self.swap_stream)
        part.future = self._executor.submit(self._host_step, pid, self.global_step + 1)

    def _host_step(self, pid: int, step: int) -> bool:
        part = self.parts[pid]
        part.copied.synchronize()
        if self.config.check_overflow:
            if not np.isfinite(part.host_grad).all():
                return False
        self.adam.step_partition(step, part.master, part.host_grad, part.exp_avg, part.exp_avg_sq,
                                 part.host_param16)
        return True

    def step(self) -> bool:
        results = [part.future.result() for part in self.parts]
        if not all(results):
            logger.warning("overflow in offloaded gradients, skipping step %d", self.global_step + 1)
            return False
        params_free = cuda.event(timing=False)
        params_free.record(self.compute_stream)
        params_free.wait(self.swap_stream)
        for part in self.parts:
            cuda.to_device(part.host_param16, stream=self.swap_stream, to=part.device_param16)
        params_loaded = cuda.event(timing=False)
        params_loaded.record(self.swap_stream)
        params_loaded.wait(self.compute_stream)
        self.global_step += 1
        return True

    def zero_grad(self) -> None:
        for part in self.parts:
            clear_grad(part.device_grad, self.compute_stream)
