# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
# Licensed under the Apache License, Version 2.0
"""Small device-agnostic wrappers so the cache works on cuda, xpu and other accelerator backends."""
import torch


def device_module_for(device: torch.device):
    return torch.get_device_module(device)


def new_side_stream(device: torch.device):
    device_mod = device_module_for(device)
    return device_mod.Stream(device=device)


def new_event(device: torch.device):
    return device_module_for(device).Event()
