"""Greedy decoding loop."""

import torch

from flexgen_cpu.env import ExecutionEnv
from flexgen_cpu.layer import CpuCacheSelfAttention


def generate(embed: torch.Tensor, lm_head: torch.Tensor, prompt_ids: list[int],
             gen_len: int, num_layers: int = 4, n_head: int = 8) -> list[int]:
    """embed: [vocab, h] CPU float32 table; lm_head: [vocab, h] float32 on the GPU."""
    env = ExecutionEnv.create()
    hidden_size = embed.shape[1]
    layers = [CpuCacheSelfAttention(env, hidden_size, n_head, 1, len(prompt_ids) + gen_len)
              for _ in range(num_layers)]
    out_ids = list(prompt_ids)
    for pos in range(len(prompt_ids) + gen_len - 1):
        hidden = embed[out_ids[pos]].unsqueeze(0).to(env.gpu, dtype=torch.float16)
        for layer in layers:
            hidden = layer.forward_gen(hidden, pos)
        if pos + 1 < len(prompt_ids):
            continue
        logits = torch.nn.functional.linear(hidden.float(), lm_head)
        # Blocking device-to-host copy: .cpu() returns after the data landed.
        next_id = logits.argmax(-1).cpu()
        out_ids.append(int(next_id[0]))
    return out_ids
