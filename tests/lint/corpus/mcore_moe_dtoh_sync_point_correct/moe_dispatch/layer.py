"""MoE layer: top-k router, dispatcher, a sequential set of local experts."""

import torch
import torch.nn.functional as F
from torch import nn

from moe_dispatch.dispatcher import AlltoAllTokenDispatcher
from moe_dispatch.stats import TokenCountTracker


class TopKRouter(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.topk = config.router_topk
        self.weight = nn.Parameter(torch.empty(config.num_experts, config.hidden_size))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, hidden):
        logits = F.linear(hidden.view(-1, hidden.size(-1)), self.weight)
        scores, top = torch.topk(logits.softmax(dim=-1), self.topk, dim=-1)
        routing_map = torch.zeros(
            logits.shape, dtype=torch.bool, device=torch.cuda.current_device()
        ).scatter_(1, top, True)
        probs = torch.zeros_like(logits).scatter_(1, top, scores)
        return probs, routing_map


class SequentialExperts(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.local_experts = nn.ModuleList(
            nn.Sequential(
                nn.Linear(config.hidden_size, config.ffn_hidden_size),
                nn.GELU(),
                nn.Linear(config.ffn_hidden_size, config.hidden_size),
            )
            for _ in range(config.num_local_experts)
        )

    def forward(self, tokens, tokens_per_expert):
        chunks = torch.split(tokens, tokens_per_expert.tolist(), dim=0)
        return torch.cat([expert(chunk) for expert, chunk in zip(self.local_experts, chunks)], dim=0)


class MoELayer(nn.Module):
    def __init__(self, config, ep_group, ep_rank, layer_number):
        super().__init__()
        self.router = TopKRouter(config)
        self.experts = SequentialExperts(config)
        tracker = TokenCountTracker() if config.log_token_counts else None
        self.dispatcher = AlltoAllTokenDispatcher(config, ep_group, ep_rank, layer_number, tracker=tracker)

    def forward(self, hidden_states):
        probs, routing_map = self.router(hidden_states)
        d = self.dispatcher
        permuted, permuted_probs, tokens_per_expert = d.dispatch_preprocess(hidden_states, routing_map, probs)
        global_tokens, global_probs, tokens_per_expert = d.token_dispatch(permuted, permuted_probs, tokens_per_expert)
        global_tokens, global_probs, tokens_per_expert = d.dispatch_postprocess(
            global_tokens, global_probs, tokens_per_expert
        )
        expert_output = self.experts(global_tokens, tokens_per_expert)
        local = d.combine(expert_output)
        return d.unpermute(local, permuted_probs)


def train_step(layer, hidden_states, optimizer):
    out = layer(hidden_states)
    loss = out.float().pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()
