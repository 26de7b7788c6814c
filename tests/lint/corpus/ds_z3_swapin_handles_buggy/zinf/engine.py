# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""A minimal ZeRO-Inference engine: weights live in pinned host memory and are streamed in
layer by layer through the coordinator's hooks."""

import torch
from deepspeed.accelerator import get_accelerator

from .coordinator import ZeroInferenceCoordinator
from .swap_handles import PartitionStatus


class ZeroInferenceEngine:

    def __init__(self, module, ring_numel, prefetch_depth=2):
        self.module = module
        dtype = next(module.parameters()).dtype
        self.coordinator = ZeroInferenceCoordinator(ring_numel, dtype, prefetch_depth)
        self._offload_parameters()
        self._register_hooks()

    @torch.no_grad()
    def _offload_parameters(self):
        for ds_id, param in enumerate(self.module.parameters()):
            host = get_accelerator().pin_memory(torch.empty(param.numel(), dtype=param.dtype))
            host.copy_(param.data.view(-1))
            param.ds_id = ds_id
            param.ds_numel = param.numel()
            param.ds_shape = param.shape
            param.ds_cpu_partition = host
            param.ds_empty = torch.empty(0, dtype=param.dtype, device=param.device)
            param.data = param.ds_empty
            param.ds_status = PartitionStatus.NOT_AVAILABLE

    def _register_hooks(self):
        coordinator = self.coordinator

        def pre_forward(submodule, inputs):
            coordinator.fetch_sub_module(submodule)

        def post_forward(submodule, inputs, outputs):
            coordinator.release_sub_module(submodule)

        for submodule in self.module.modules():
            if any(hasattr(p, "ds_id") for p in submodule.parameters(recurse=False)):
                submodule.register_forward_pre_hook(pre_forward)
                submodule.register_forward_hook(post_forward)

    @torch.no_grad()
    def generate_step(self, input_ids):
        self.coordinator.begin_forward()
        logits = self.module(input_ids)
        self.coordinator.end_forward()
        return logits
