"""An MoE layer that runs only the experts the router picked, from the expert cache."""

import torch

from expert_cache.cache import ExpertCache


class CachedMoE(torch.nn.Module):
    def __init__(self, layer_index, router, cache: ExpertCache):
        super().__init__()
        self.layer_index = layer_index
        self.router = router
        self.cache = cache

    def forward(self, hidden):
        picked = self.router(hidden).topk(2, dim=-1).indices
        experts = sorted(set(picked.flatten().tolist()))
        weights, indices = self.cache.acquire(self.layer_index, experts)
        out = torch.einsum("td,edh->teh", hidden, weights).sum(dim=1)
        self.cache.mark_used(indices)
        return out
