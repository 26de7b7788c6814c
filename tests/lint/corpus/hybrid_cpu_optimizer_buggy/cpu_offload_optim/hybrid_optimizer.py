# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Iterable, List

import torch

from .buckets import HostBucket
from .config import OptimizerOffloadConfig
from .cpu_worker import run_cpu_adam

logger = logging.getLogger(__name__)


class HybridDeviceOptimizer(torch.optim.Optimizer):
    """Keeps a fraction of the parameters' Adam states on the host. Their gradients are copied to pinned
    host buffers on a side stream, updated by a thread pool, and the new weights are copied back."""

    def __init__(self, params: Iterable[torch.nn.Parameter], config: OptimizerOffloadConfig,
                 gpu_optimizer_cls=torch.optim.AdamW):
        params = [p for p in params if p.requires_grad]
        super().__init__(params, defaults={})
        self.config = config
        total = sum(p.numel() for p in params)
        host_params: List[torch.nn.Parameter] = []
        offloaded = 0
        for p in params:
            if offloaded + p.numel() > config.offload_fraction * total:
                break
            host_params.append(p)
            offloaded += p.numel()
        device_params = params[len(host_params):]
        chunk = max(1, len(host_params) // config.num_cpu_workers)
        self.buckets = [
            HostBucket.build(host_params[i:i + chunk], config.pin_cpu_grads, config.pin_cpu_params)
            for i in range(0, len(host_params), chunk)
        ]
        self.gpu_optimizer = gpu_optimizer_cls(device_params, lr=config.lr, betas=config.betas, eps=config.eps,
                                               weight_decay=config.weight_decay) if device_params else None
        self._d2h_stream = torch.cuda.Stream()
        self._h2d_stream = torch.cuda.Stream()
        self._executor = ThreadPoolExecutor(max_workers=config.num_cpu_workers, thread_name_prefix="cpu-adam")
        logger.info("HybridDeviceOptimizer: %d of %d elements updated on host", offloaded, total)

    def _copy_grads_to_host(self, bucket: HostBucket):
        with torch.cuda.stream(self._d2h_stream):
            for param, cpu_grad in zip(bucket.device_params, bucket.cpu_grads):
                cpu_grad.copy_(param.grad, non_blocking=True)
            return self._d2h_stream.record_event()

    @torch.no_grad()
    def step(self, closure=None):
        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        futures = []
        for bucket in self.buckets:
            grads_ready = self._copy_grads_to_host(bucket)
            futures.append(self._executor.submit(run_cpu_adam, bucket, grads_ready, self.config))
        if self.gpu_optimizer is not None:
            self.gpu_optimizer.step()

        self._h2d_stream.wait_stream(torch.cuda.current_stream())
        for bucket, future in zip(self.buckets, futures):
            future.result()
            with torch.cuda.stream(self._h2d_stream):
                for param, cpu_param in zip(bucket.device_params, bucket.cpu_params):
                    param.data.copy_(cpu_param, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self._h2d_stream)

    def zero_grad(self, set_to_none: bool = True):
        for bucket in self.buckets:
            for p in bucket.device_params:
                p.grad = None if set_to_none else p.grad.zero_()
        if self.gpu_optimizer is not None:
            self.gpu_optimizer.zero_grad(set_to_none=set_to_none)
