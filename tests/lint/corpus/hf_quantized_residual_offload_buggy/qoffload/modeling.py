import torch
import torch.nn.functional as F
from torch import nn

from qoffload.cache import OffloadedQuantizedCache


class SelfAttention(nn.Module):
    def __init__(self, hidden: int, heads: int, layer_idx: int):
        super().__init__()
        self.heads, self.head_dim, self.layer_idx = heads, hidden // heads, layer_idx
        self.qkv = nn.Linear(hidden, 3 * hidden, bias=False)
        self.out = nn.Linear(hidden, hidden, bias=False)

    def forward(self, x, cache: OffloadedQuantizedCache):
        b, t, _ = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, self.head_dim).unbind(2)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        keys, values = cache.update(k, v, self.layer_idx)
        y = F.scaled_dot_product_attention(q, keys, values, is_causal=t > 1)
        return self.out(y.transpose(1, 2).reshape(b, t, -1))


class TinyLM(nn.Module):
    def __init__(self, vocab: int, hidden: int, heads: int, num_layers: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.layers = nn.ModuleList(SelfAttention(hidden, heads, i) for i in range(num_layers))
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, input_ids, cache):
        x = self.embed(input_ids)
        for layer in self.layers:
            x = x + layer(x, cache)
        return self.lm_head(x)


@torch.no_grad()
def generate(model: TinyLM, input_ids: torch.Tensor, max_new_tokens: int) -> torch.Tensor:
    cache = OffloadedQuantizedCache(len(model.layers), device=str(input_ids.device))
    tokens = input_ids
    for _ in range(max_new_tokens):
        logits = model(tokens if cache.get_seq_length() == 0 else tokens[:, -1:], cache)
        tokens = torch.cat([tokens, logits[:, -1].argmax(-1, keepdim=True)], dim=1)
    return tokens
