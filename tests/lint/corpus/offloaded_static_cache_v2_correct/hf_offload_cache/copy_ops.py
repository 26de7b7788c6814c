# coding=utf-8
# Copyright 2024 The HuggingFace Team. All rights reserved.
import torch


def load_layer_into(dst_key: torch.Tensor, dst_value: torch.Tensor, src_key: torch.Tensor,
                    src_value: torch.Tensor, stream, device_module) -> None:
    """Upload one offloaded layer into a preallocated device slot on ``stream``."""
    with device_module.stream(stream):
        for dst, src in ((dst_key, src_key), (dst_value, src_value)):
            dst.copy_(src, non_blocking=True)


def write_back_tokens(offloaded: torch.Tensor, states: torch.Tensor, start: int) -> None:
    """Mirror freshly projected key/value states into the pinned copy of the layer."""
    offloaded.narrow(2, start, states.shape[-2]).copy_(states, non_blocking=True)
