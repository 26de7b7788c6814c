# Copyright (c) 2024, NVIDIA CORPORATION. All rights reserved.
"""Distributed optimizer variant that runs Adam on the host.

Each bucket's reduce-scattered main grads are copied to pinned memory on a
dedicated D2H stream, Adam runs on fp32 host master weights, and the updated
model-dtype params are copied back into the DDP param buffer on an H2D stream.
"""
from __future__ import annotations

import logging
from typing import List, Optional

import torch

from .bucket_state import _CpuBucketState, _ParamAndGradBucket
from .cpu_adam import adam_step_
from .optimizer_config import CPUOffloadOptimizerConfig

logger = logging.getLogger(__name__)


class CPUOffloadDistributedOptimizer:
    def __init__(self, config: CPUOffloadOptimizerConfig, buckets: List[_ParamAndGradBucket]):
        self.config = config
        self.buckets = buckets
        self.cpu_states = [_CpuBucketState.for_bucket(b) for b in buckets]
        self._d2h_stream = torch.cuda.Stream()
        self._h2d_stream = torch.cuda.Stream()
        self._step = 0
        self.params_norm: Optional[torch.Tensor] = None

    def _calc_params_l2_norm(self) -> torch.Tensor:
        norms = [b.param_data.float().norm(2) for b in self.buckets]
        return torch.linalg.vector_norm(torch.stack(norms), 2)

    def _copy_main_grads_to_host(self) -> None:
        self._d2h_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self._d2h_stream):
            for bucket, state in zip(self.buckets, self.cpu_states):
                state.cpu_grad.copy_(bucket.grad_data, non_blocking=True)
                state.d2h_event.record(self._d2h_stream)

    def _host_adam_update(self) -> None:
        for state in self.cpu_states:
            # cpu_param may still feed last step's H2D copy
            state.h2d_event.synchronize()
            # expect: KVG003
            grad = state.cpu_grad.numpy()
            adam_step_(
                state.main_param.numpy(),
                grad,
                state.exp_avg.numpy(),
                state.exp_avg_sq.numpy(),
                self._step,
                self.config,
            )
            state.cpu_param.copy_(state.main_param)

    def _copy_params_to_device(self) -> None:
        with torch.cuda.stream(self._h2d_stream):
            for bucket, state in zip(self.buckets, self.cpu_states):
                # expect: KVG004
                bucket.param_data.copy_(state.cpu_param, non_blocking=True)
                state.h2d_event.record(self._h2d_stream)
        torch.cuda.current_stream().wait_stream(self._h2d_stream)

    @torch.no_grad()
    def step(self) -> bool:
        self._step += 1
        if self.config.log_params_norm:
            self.params_norm = self._calc_params_l2_norm()
        self._copy_main_grads_to_host()
        self._host_adam_update()
        self._copy_params_to_device()
        return True
