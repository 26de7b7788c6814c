import torch
import torch.nn.functional as F

from .kv_home import load_prefix, store_new_tokens


class InputEmbed:
    def __init__(self, embed: torch.Tensor, device: torch.device):
        self.embed = embed.to(device)
        self.device = device

    def load_weight(self, weight_home, weight_read_buf):
        pass

    def load_cache(self, cache_home, cache_read_buf, prefix_len: int):
        pass

    def store_cache(self, cache_home, cache_write_buf, start: int):
        pass

    def forward(self, hidden, weight_read_buf, cache_read_buf, cache_write_buf):
        hidden.val = self.embed[hidden.val]


class OutputEmbed:
    def __init__(self, embed: torch.Tensor, device: torch.device):
        self.embed = embed.to(device)
        self.device = device

    def load_weight(self, weight_home, weight_read_buf):
        pass

    def load_cache(self, cache_home, cache_read_buf, prefix_len: int):
        pass

    def store_cache(self, cache_home, cache_write_buf, start: int):
        pass

    def forward(self, hidden, weight_read_buf, cache_read_buf, cache_write_buf):
        h = hidden.val[:, -1]
        logits = F.layer_norm(h, (h.shape[-1],)) @ self.embed.T
        hidden.val = logits.argmax(dim=-1, keepdim=True)


class TransformerLayer:
    """One OPT decoder layer whose weights and KV cache live on the host between uses."""

    def __init__(self, layer_id: int, hidden_size: int, num_heads: int, device: torch.device):
        self.layer_id = layer_id
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.device = device

    def load_weight(self, weight_home, weight_read_buf):
        weights = weight_home.val
        weight_read_buf.store(tuple(w.to(self.device, non_blocking=True) for w in weights))

    def load_cache(self, cache_home, cache_read_buf, prefix_len: int):
        if prefix_len == 0:
            return
        k_home, v_home = cache_home.val
        cache_read_buf.store(load_prefix(k_home, v_home, prefix_len, self.device))

    def store_cache(self, cache_home, cache_write_buf, start: int):
        k_home, v_home = cache_home.val
        k_new, v_new = cache_write_buf.pop()
        store_new_tokens(k_home, v_home, k_new, v_new, start)

    def forward(self, hidden, weight_read_buf, cache_read_buf, cache_write_buf):
        w_ln, w_q, w_k, w_v, w_out, w_fc1, w_fc2 = weight_read_buf.pop()
        h = hidden.val
        b, s, d = h.shape
        x = F.layer_norm(h, (d,), weight=w_ln)
        q, k, v = x @ w_q, x @ w_k, x @ w_v
        k_new, v_new = k.transpose(0, 1).contiguous(), v.transpose(0, 1).contiguous()

        past = cache_read_buf.pop()
        if past is not None:
            k_all = torch.cat([past[0], k_new], dim=0)
            v_all = torch.cat([past[1], v_new], dim=0)
        else:
            k_all, v_all = k_new, v_new

        head = d // self.num_heads
        q = q.view(b, s, self.num_heads, head).transpose(1, 2)
        k_all = k_all.permute(1, 0, 2).reshape(b, -1, self.num_heads, head).transpose(1, 2)
        v_all = v_all.permute(1, 0, 2).reshape(b, -1, self.num_heads, head).transpose(1, 2)
        attn = F.scaled_dot_product_attention(q, k_all, v_all, is_causal=past is None)
        h = h + attn.transpose(1, 2).reshape(b, s, d) @ w_out
        h = h + F.relu(F.layer_norm(h, (d,)) @ w_fc1) @ w_fc2

        cache_write_buf.store((k_new, v_new))
        hidden.val = h
