"""Sparse MoE block whose experts live in host memory and are paged into a few GPU slots."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import torch
import torch.nn as nn
import torch.nn.functional as F

from .config import ExpertOffloadConfig
from .expert_cache import ExpertSlotCache


@dataclass
class DispatchPlan:
    perm: list[int] = field(default_factory=list)
    segments: list[tuple[int, int, int]] = field(default_factory=list)  # (expert, start, count)

    @property
    def experts(self) -> list[int]:
        return [expert for expert, _, _ in self.segments]


def build_dispatch(flat_expert_ids: Sequence[int]) -> DispatchPlan:
    """``flat_expert_ids[t * top_k + j]`` is the j-th expert chosen for token t."""
    buckets: dict[int, list[int]] = {}
    for pos, expert in enumerate(flat_expert_ids):
        buckets.setdefault(int(expert), []).append(pos)
    plan = DispatchPlan()
    for expert in sorted(buckets):
        positions = buckets[expert]
        plan.segments.append((expert, len(plan.perm), len(positions)))
        plan.perm.extend(positions)
    return plan


class OffloadedSparseMoeBlock(nn.Module):
    def __init__(self, config: ExpertOffloadConfig, cache: ExpertSlotCache) -> None:
        super().__init__()
        self.config = config
        self.top_k = config.num_experts_per_tok
        self.gate = nn.Linear(config.hidden_size, config.num_experts, bias=False, dtype=config.dtype)
        self.cache = cache

    def _read_routing(self, topk_ids: torch.Tensor):
        # which experts to page in is a host decision
        return topk_ids.view(-1).tolist()

    @torch.inference_mode()
    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        num_tokens, hidden = hidden_states.shape
        router_logits = self.gate(hidden_states)
        routing_weights = F.softmax(router_logits, dim=-1, dtype=torch.float)
        topk_weights, topk_ids = torch.topk(routing_weights, self.top_k, dim=-1)
        if self.config.norm_topk_prob:
            topk_weights = topk_weights / topk_weights.sum(dim=-1, keepdim=True)
        topk_weights = topk_weights.to(hidden_states.dtype)

        plan = build_dispatch(self._read_routing(topk_ids))
        slots = self.cache.ensure_loaded(plan.experts)

        perm = torch.tensor(plan.perm, dtype=torch.long).pin_memory().to(hidden_states.device, non_blocking=True)
        token_idx = perm // self.top_k
        gate_w = topk_weights.view(-1).index_select(0, perm)
        out = torch.zeros_like(hidden_states)
        for expert, start, count in plan.segments:
            slot = slots[expert]
            idx = token_idx.narrow(0, start, count)
            x = hidden_states.index_select(0, idx)
            gate_up = F.linear(x, self.cache.w13[slot])
            g, u = gate_up.chunk(2, dim=-1)
            y = F.linear(F.silu(g) * u, self.cache.w2[slot])
            out.index_add_(0, idx, y * gate_w.narrow(0, start, count).unsqueeze(-1))
        return out
