# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Optimizer state offloading for the distributed optimizer."""

import logging
from typing import Dict, List, Tuple

import torch

from .cpu_buffers import empty_like_on_cpu, offload_shard_groups, reload_shard_groups
from .optimizer_config import OPTIMIZER_STATE_KEYS, OffloadConfig

logger = logging.getLogger(__name__)


class OptimizerStateOffloader:
    def __init__(self, inner_optimizer: torch.optim.Optimizer,
                 shard_fp32_from_float16_groups: List[List[torch.Tensor]],
                 config: OffloadConfig):
        self.inner_optimizer = inner_optimizer
        self.shard_fp32_from_float16_groups = shard_fp32_from_float16_groups
        self.config = config
        self._device_module = torch.get_device_module()
        self._d2h_stream = self._device_module.Stream()
        self._h2d_stream = self._device_module.Stream()
        self._state_cpu_buffers: Dict[torch.Tensor, Dict[str, torch.Tensor]] = {}
        self._master_cpu_buffers: List[List[torch.Tensor]] = []
        self._offloaded_keys: Tuple[str, ...] = ()
        self._offloaded = False
        self._optimizer_states_initialized = False

    def mark_optimizer_states_initialized(self) -> None:
        self._optimizer_states_initialized = True

    def _offload_states(self) -> None:
        pin = self.config.pin_cpu_buffers
        for param, param_state in self.inner_optimizer.state.items():
            buffers = self._state_cpu_buffers.setdefault(param, {})
            for key in self._offloaded_keys:
                gpu_tensor = param_state.get(key)
                if not isinstance(gpu_tensor, torch.Tensor) or gpu_tensor.is_cpu:
                    continue
                if key not in buffers:
                    buffers[key] = empty_like_on_cpu(gpu_tensor, pin)
                buffers[key].copy_(gpu_tensor, non_blocking=pin)
                gpu_tensor.record_stream(self._d2h_stream)

    def offload(self, offload_optimizer_states: bool, offload_master_weights: bool) -> None:
        """Start the D2H copy; overlaps with whatever runs next on the compute stream."""
        if offload_optimizer_states and self._optimizer_states_initialized:
            self._offloaded_keys = OPTIMIZER_STATE_KEYS
            self._d2h_stream.wait_stream(torch.accelerator.current_stream())
            with self._device_module.stream(self._d2h_stream):
                self._offload_states()
        if offload_master_weights:
            with self._device_module.stream(self._d2h_stream):
                offload_shard_groups(
                    self.shard_fp32_from_float16_groups,
                    self._master_cpu_buffers,
                    self._d2h_stream,
                    self.config.pin_cpu_buffers,
                )
        self._offloaded = True

    def wait_for_d2h(self) -> None:
        self._d2h_stream.synchronize()

    def cpu_state_dict(self) -> Dict[str, object]:
        return {
            "optimizer_states": {
                idx: dict(bufs) for idx, bufs in enumerate(self._state_cpu_buffers.values())
            },
            "master_weights": self._master_cpu_buffers,
        }

    def reload(self) -> None:
        if not self._offloaded:
            return
        reload_shard_groups(self.shard_fp32_from_float16_groups, self._master_cpu_buffers, True)
        self._h2d_stream.wait_stream(self._d2h_stream)
        self._h2d_stream.wait_stream(torch.accelerator.current_stream())
        with self._device_module.stream(self._h2d_stream):
            reload_shard_groups(self.shard_fp32_from_float16_groups, self._master_cpu_buffers, False)
        self._offloaded = False

    def sync_before_step(self) -> None:
        torch.accelerator.current_stream().wait_stream(self._h2d_stream)
