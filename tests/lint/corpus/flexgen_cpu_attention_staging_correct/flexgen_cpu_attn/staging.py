"""Pinned staging for the per-step q/k/v of one layer, packed as (3, batch, heads, head_dim)."""

from dataclasses import dataclass, field

import torch


@dataclass
class QKVStaging:
    qkv: torch.Tensor
    copied: torch.cuda.Event = field(default_factory=torch.cuda.Event)

    @classmethod
    def allocate(cls, policy):
        shape = (3, policy.gpu_batch_size, policy.num_heads, policy.head_dim)
        return cls(qkv=torch.empty(shape, dtype=policy.comp_dtype, pin_memory=True))

    def stage(self, qkv_dev, stream):
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            self.qkv.copy_(qkv_dev, non_blocking=True)
            self.copied.record(stream)

    def host_qkv(self):
        """The staged q/k/v, once the copy has landed."""
        self.copied.synchronize()
        return self.qkv
