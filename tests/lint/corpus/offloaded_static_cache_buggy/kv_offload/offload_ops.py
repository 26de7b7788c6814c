# coding=utf-8
# Copyright 2024 The HuggingFace Inc. team.
#
# Licensed under the Apache License, Version 2.0 (the "License");
from typing import Tuple

import torch


def allocate_offloaded_layer(shape: Tuple[int, ...], dtype: torch.dtype, device: str) -> torch.Tensor:
    is_cpu = torch.device(device).type == "cpu"
    return torch.zeros(shape, dtype=dtype, device=device, pin_memory=is_cpu)


def prefetch_layer_into(
    device_key: torch.Tensor,
    device_value: torch.Tensor,
    offloaded_key: torch.Tensor,
    offloaded_value: torch.Tensor,
    stream: torch.cuda.Stream,
) -> None:
    with torch.cuda.stream(stream):
        for dst, src in ((device_key, offloaded_key), (device_value, offloaded_value)):
            # expect: KVG004
            dst.copy_(src, non_blocking=True)


def write_back_positions(
    offloaded_key: torch.Tensor,
    offloaded_value: torch.Tensor,
    key_states: torch.Tensor,
    value_states: torch.Tensor,
    start: int,
    stream: torch.cuda.Stream,
) -> None:
    length = key_states.shape[-2]
    with torch.cuda.stream(stream):
        offloaded_key.narrow(2, start, length).copy_(key_states, non_blocking=True)
        offloaded_value.narrow(2, start, length).copy_(value_states, non_blocking=True)
    key_states.record_stream(stream)
    value_states.record_stream(stream)
