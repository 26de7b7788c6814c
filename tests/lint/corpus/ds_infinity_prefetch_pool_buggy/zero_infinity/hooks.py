# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Forward hooks that drive the coordinator."""


def register_fetch_hooks(module, coordinator):
    handles = []

    def _pre_forward(submodule, inputs):
        coordinator.fetch_sub_module(submodule)

    def _post_forward(submodule, inputs, outputs):
        coordinator.release_sub_module(submodule)

    for submodule in module.modules():
        if any(hasattr(p, "ds_id") for p in submodule.parameters(recurse=False)):
            handles.append(submodule.register_forward_pre_hook(_pre_forward))
            handles.append(submodule.register_forward_hook(_post_forward))

    def _end_of_forward(mod, inputs, outputs):
        coordinator.reset_step()

    handles.append(module.register_forward_hook(_end_of_forward))
    return handles
