# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
# Licensed under the Apache License, Version 2.0
from dataclasses import dataclass
from typing import Optional, Union

import torch


@dataclass
class OffloadedCacheConfig:
    """Configuration for a prefix key/value cache kept in host memory and streamed in layer by layer."""

    num_hidden_layers: int
    device: Union[str, torch.device] = "cuda"
    offload_device: Union[str, torch.device] = "cpu"
    dtype: torch.dtype = torch.float16
    pin_memory: bool = True
    num_device_slots: int = 2
    layers_attr: Optional[str] = "model.layers"

    def __post_init__(self):
        self.device = torch.device(self.device)
        self.offload_device = torch.device(self.offload_device)
        if self.num_device_slots < 2:
            raise ValueError("OffloadedPrefixCache needs at least two device slots to overlap transfers.")
