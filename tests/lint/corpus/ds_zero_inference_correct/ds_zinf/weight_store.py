# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import Dict, List, Tuple

import torch

from ds_zinf.config import ZeroInferenceConfig

PARAM_ORDER = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj",
               "input_layernorm", "post_attention_layernorm")


def param_shapes(cfg: ZeroInferenceConfig) -> List[Tuple[str, Tuple[int, ...]]]:
    h, f = cfg.hidden_size, cfg.intermediate_size
    shapes = {
        "q_proj": (h, h), "k_proj": (h, h), "v_proj": (h, h), "o_proj": (h, h),
        "gate_proj": (f, h), "up_proj": (f, h), "down_proj": (h, f),
        "input_layernorm": (h, ), "post_attention_layernorm": (h, ),
    }
    return [(name, shapes[name]) for name in PARAM_ORDER]


class PinnedWeightStore(object):
    """Holds every layer's weights flattened in one pinned host tensor."""

    def __init__(self, cfg: ZeroInferenceConfig, state_dicts: List[Dict[str, torch.Tensor]]):
        self.cfg = cfg
        self.shapes = param_shapes(cfg)
        self.flat = torch.empty((cfg.num_layers, cfg.layer_numel), dtype=cfg.dtype, pin_memory=True)
        for layer_id, sd in enumerate(state_dicts):
            offset = 0
            for name, shape in self.shapes:
                numel = sd[name].numel()
                self.flat[layer_id, offset:offset + numel].copy_(sd[name].reshape(-1))
                offset += numel

    def layer(self, layer_id: int) -> torch.Tensor:
        return self.flat[layer_id]

    def views(self, slot: torch.Tensor) -> Dict[str, torch.Tensor]:
        out, offset = {}, 0
        for name, shape in self.shapes:
            numel = 1
            for d in shape:
                numel *= d
            out[name] = slot[offset:offset + numel].view(shape)
            offset += numel
        return out
