# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
import logging
import math
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List

import torch

from .config import OptimizerOffloadConfig
from .copy_streams import make_copy_streams, stage_grads_to_host

logger = logging.getLogger(__name__)


def _param_generator(cpu_optimizer):
    for group in cpu_optimizer.param_groups:
        for param in group["params"]:
            yield param


class HybridDeviceOptimizer(torch.optim.Optimizer):
    """Runs the step of a fraction of the parameters on CPU sub-optimizers.

    Gradients are staged to pinned host memory on a D2H stream, each CPU
    sub-optimizer steps in a worker thread, and the updated parameters are
    copied back on an H2D stream.
    """

    def __init__(self, params, config: OptimizerOffloadConfig, cpu_optimizer_cls=torch.optim.AdamW, **kwargs):
        params = list(params)
        super().__init__(params, defaults=kwargs)
        self.config = config
        self.cpu_copys_map_gpu_param: Dict[torch.Tensor, torch.Tensor] = {}
        self.cpu_copy_map_grad: Dict[torch.Tensor, torch.Tensor] = {}
        self.cpu_optimizers: List[torch.optim.Optimizer] = []
        for gpu_param in params:
            cpu_param = gpu_param.detach().to("cpu", pin_memory=config.pin_cpu_params)
            cpu_param.requires_grad = True
            self.cpu_copys_map_gpu_param[cpu_param] = gpu_param
            self.cpu_optimizers.append(cpu_optimizer_cls([cpu_param], **kwargs))
        self._d2h_stream, self._h2d_stream = make_copy_streams(config.overlap_cpu_optimizer_d2h_h2d)
        self._cpu_optimizer_map_data_event: Dict[torch.optim.Optimizer, torch.cuda.Event] = {}
        self._executor = ThreadPoolExecutor(max_workers=config.num_cpu_step_workers)

    def _set_sub_optimizer_grads(self) -> None:
        for optimizer in self.cpu_optimizers:
            stage_grads_to_host(
                _param_generator(optimizer),
                self.cpu_copys_map_gpu_param,
                self.cpu_copy_map_grad,
                self.config.pin_cpu_grads,
            )
            self._cpu_optimizer_map_data_event[optimizer] = self._d2h_stream.record_event()

    def _cpu_step(self, optimizer, d2h_event, closure=None) -> bool:
        if self.config.check_for_nan_in_grad:
            grads = [p.grad for p in _param_generator(optimizer) if p.grad is not None]
            if grads:
                # expect: KVG003
                total = torch.stack([g.float().norm() for g in grads]).norm().item()
                if not math.isfinite(total):
                    return False
        if d2h_event is not None:
            d2h_event.synchronize()
        optimizer.step(closure)
        return True

    def _copy_params_back(self, optimizer) -> None:
        self._h2d_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._h2d_stream):
            for param in _param_generator(optimizer):
                gpu_param = self.cpu_copys_map_gpu_param[param]
                gpu_param.data.copy_(param.data, non_blocking=True)
        torch.cuda.current_stream().wait_stream(self._h2d_stream)

    @torch.no_grad()
    def step(self, closure=None):
        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._d2h_stream):
            self._set_sub_optimizer_grads()

        futures = {}
        for cpu_optimizer in self.cpu_optimizers:
            d2h_event = self._cpu_optimizer_map_data_event.pop(cpu_optimizer, None)
            futures[cpu_optimizer] = self._executor.submit(self._cpu_step, cpu_optimizer, d2h_event, closure)

        skipped = 0
        for cpu_optimizer, future in futures.items():
            if future.result():
                self._copy_params_back(cpu_optimizer)
            else:
                skipped += 1
        if skipped:
            logger.warning("skipped the CPU step of %d sub-optimizers (non-finite grads)", skipped)
        return None
