# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import torch

from zeroswap.coordinator import PartitionedParameterCoordinator


def register_swap_hooks(model: torch.nn.Module, coordinator: PartitionedParameterCoordinator) -> list:
    handles = []

    def _pre_forward(module, inputs):
        coordinator.fetch_sub_module(module)

    def _post_forward(module, inputs, outputs):
        coordinator.release_sub_module(module)

    for module in model.modules():
        if not any(hasattr(p, "ds_id") for p in module.parameters(recurse=False)):
            continue
        handles.append(module.register_forward_pre_hook(_pre_forward))
        handles.append(module.register_forward_hook(_post_forward))
    return handles
