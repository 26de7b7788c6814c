# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from typing import Dict

import torch
import torch.nn.functional as F


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    var = x.float().pow(2).mean(-1, keepdim=True)
    return (x.float() * torch.rsqrt(var + eps)).to(x.dtype) * weight


def run_decoder_layer(hidden: torch.Tensor, p: Dict[str, torch.Tensor], eps: float) -> torch.Tensor:
    residual = hidden
    x = rms_norm(hidden, p["input_layernorm"], eps)
    q, k, v = F.linear(x, p["q_proj"]), F.linear(x, p["k_proj"]), F.linear(x, p["v_proj"])
    attn = F.scaled_dot_product_attention(q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1), is_causal=True)
    hidden = residual + F.linear(attn.squeeze(1), p["o_proj"])
    residual = hidden
    x = rms_norm(hidden, p["post_attention_layernorm"], eps)
    x = F.silu(F.linear(x, p["gate_proj"])) * F.linear(x, p["up_proj"])
    return residual + F.linear(x, p["down_proj"])
