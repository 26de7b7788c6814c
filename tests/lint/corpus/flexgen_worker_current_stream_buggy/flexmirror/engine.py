"""Decoding loop. Each layer projects the new token's K/V into the layer's device cache on the
compute stream; the slice it wrote is then queued for the copy thread, which mirrors it into the
layer's pinned host cache."""

import contextlib

import torch
import torch.nn.functional as F

from .copy_worker import CopyWorker, MirrorJob
from .policy import Policy


class MirroredKVEngine:
    def __init__(self, layers, policy: Policy, device="cuda:0"):
        self.layers = layers
        self.policy = policy
        self.device = torch.device(device)
        # position-major, so that one token's K/V of a layer is one contiguous block
        shape = (policy.max_seq_len, 2, policy.batch_size, policy.num_heads, policy.head_dim)
        self.device_kv = [torch.zeros(shape, dtype=policy.dtype, device=self.device) for _ in layers]
        self.host_kv = [torch.zeros(shape, dtype=policy.dtype, pin_memory=True) for _ in layers]
        self.compute_stream = torch.cuda.Stream(self.device) if policy.dedicated_compute_stream else None
        self.worker = CopyWorker(self.device)

    @contextlib.contextmanager
    def _compute_scope(self):
        if self.compute_stream is None:
            yield
            return
        caller = torch.cuda.current_stream(self.device)
        # the input hidden states (and the zero-filled caches) come from the caller's stream
        self.compute_stream.wait_stream(caller)
        with torch.cuda.stream(self.compute_stream):
            yield
        caller.wait_stream(self.compute_stream)

    def _layer(self, j, hidden, pos):
        p = self.policy
        layer = self.layers[j]
        bsz = hidden.shape[0]
        q, k, v = F.linear(hidden, layer["w_qkv"]).view(bsz, 3, p.num_heads, p.head_dim).unbind(1)
        kv = self.device_kv[j]
        kv[pos, 0].copy_(k)
        kv[pos, 1].copy_(v)
        keys = kv[: pos + 1, 0].permute(1, 2, 0, 3)
        values = kv[: pos + 1, 1].permute(1, 2, 0, 3)
        attn = F.scaled_dot_product_attention(q.unsqueeze(2), keys, values)
        return hidden + F.linear(attn.reshape(bsz, -1), layer["w_out"])

    def _mirror(self, j, pos):
        src = self.device_kv[j][pos]
        dst = self.host_kv[j][pos]
        self.worker.submit(MirrorJob(layer=j, position=pos, host_dst=dst, device_src=src))

    @torch.no_grad()
    def decode_step(self, hidden, pos):
        with self._compute_scope():
            for j in range(len(self.layers)):
                hidden = self._layer(j, hidden, pos)
                self._mirror(j, pos)
        return hidden

    def sync(self):
        self.worker.join()
        torch.cuda.synchronize(self.device)

    @torch.no_grad()
    def generate(self, hidden, start_pos, steps):
        for step in range(steps):
            hidden = self.decode_step(hidden, start_pos + step)
            self.sync()
        return hidden

    def swap_out(self):
        """After ``sync()`` the host mirror is complete: the device cache can be dropped."""
        self.sync()
        self.device_kv = None
