"""``disk_offload`` in the shape of accelerate's: offload the weights to a folder once, then let a
pre-forward hook on every leaf module load its weights to the execution device and a post-forward
hook drop them again."""

import json
import os
from collections.abc import Mapping

import torch
from torch import nn

from fastoffload.offload import load_offloaded_weight, offload_state_dict


class OffloadedWeightsLoader(Mapping):
    def __init__(self, save_folder: str):
        self.save_folder = save_folder
        with open(os.path.join(save_folder, "index.json"), encoding="utf-8") as f:
            self.index = json.load(f)

    def __getitem__(self, key: str) -> torch.Tensor:
        return load_offloaded_weight(self.save_folder, key, self.index[key])

    def __iter__(self):
        return iter(self.index)

    def __len__(self) -> int:
        return len(self.index)


def _attach_align_device_hook(module: nn.Module, prefix: str, execution_device, weights_map: Mapping) -> None:
    names = [n for n, _ in module.named_parameters(recurse=False)]

    def pre_forward(mod, args):
        for n in names:
            value = weights_map[f"{prefix}{n}"].to(execution_device)
            mod._parameters[n] = nn.Parameter(value, requires_grad=False)

    def post_forward(mod, args, output):
        for n in names:
            mod._parameters[n] = nn.Parameter(mod._parameters[n].to("meta"), requires_grad=False)
        return output

    if names:
        module.register_forward_pre_hook(pre_forward)
        module.register_forward_hook(post_forward)
    for child_name, child in module.named_children():
        _attach_align_device_hook(child, f"{prefix}{child_name}.", execution_device, weights_map)


def disk_offload(model: nn.Module, offload_dir: str, execution_device=None) -> nn.Module:
    if execution_device is None:
        execution_device = next(iter(model.parameters())).device
    if not os.path.isfile(os.path.join(offload_dir, "index.json")):
        offload_state_dict(offload_dir, model.state_dict())
    weights_map = OffloadedWeightsLoader(offload_dir)
    model.to("meta")
    _attach_align_device_hook(model, "", execution_device, weights_map)
    return model
