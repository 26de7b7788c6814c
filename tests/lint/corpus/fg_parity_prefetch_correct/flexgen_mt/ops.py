"""Per-layer I/O and math used by the decoder."""

import torch


def load_weight(w_home: torch.Tensor, w_buf: torch.Tensor) -> None:
    w_buf.copy_(w_home, non_blocking=True)


def load_cache(kv_home: torch.Tensor, kv_buf: torch.Tensor, seq_len: int) -> None:
    # kv_home / kv_buf: [2, max_seq, batch, hidden]
    kv_buf[:, :seq_len].copy_(kv_home[:, :seq_len], non_blocking=True)


def decode_layer(hidden, w_buf, kv_buf, seq_len):
    h = hidden.shape[-1]
    q, k, v = torch.nn.functional.linear(hidden, w_buf[: 3 * h]).chunk(3, dim=-1)
    keys = torch.cat([kv_buf[0, :seq_len], k.unsqueeze(0)])
    vals = torch.cat([kv_buf[1, :seq_len], v.unsqueeze(0)])
    probs = torch.einsum("bh,sbh->bs", q, keys).mul_(h ** -0.5).softmax(-1)
    out = hidden + torch.nn.functional.linear(
        torch.einsum("bs,sbh->bh", probs, vals), w_buf[3 * h :])
    return out, torch.stack([k, v])
