"""A small decoder that keeps its KV cache in an OffloadedLayerCache."""

import torch
import torch.nn.functional as F

from .cache import OffloadedLayerCache


class Block(torch.nn.Module):
    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(hidden, 3 * hidden)
        self.proj = torch.nn.Linear(hidden, hidden)

    def forward(self, x, cache, layer_idx, cache_position):
        b, t, h = x.shape
        q, k, v = (
            part.view(b, t, self.heads, h // self.heads).transpose(1, 2)
            for part in self.qkv(x).chunk(3, dim=-1)
        )
        keys, values = cache.update(k, v, layer_idx, cache_position)
        out = F.scaled_dot_product_attention(q, keys, values)
        return x + self.proj(out.transpose(1, 2).reshape(b, t, h))


class Decoder(torch.nn.Module):
    def __init__(self, vocab, hidden, heads, layers):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, hidden)
        self.blocks = torch.nn.ModuleList(Block(hidden, heads) for _ in range(layers))
        self.head = torch.nn.Linear(hidden, vocab)

    def forward(self, ids, cache, cache_position):
        x = self.embed(ids)
        for i, block in enumerate(self.blocks):
            x = block(x, cache, i, cache_position)
        return self.head(x)


def generate(model, ids, steps, heads, head_dim, dump_path):
    batch, prompt = ids.shape
    cache = OffloadedLayerCache(len(model.blocks), batch, heads, prompt + steps, head_dim)
    position = torch.arange(prompt, device="cuda")
    for _ in range(steps):
        logits = model(ids, cache, position)
        ids = logits[:, -1:].argmax(-1)
        position = position[-1:] + 1
    cache.save(dump_path)
    return ids
