from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Policy:
    """The part of a FlexGen policy that the mirrored engine reads."""

    batch_size: int
    max_seq_len: int
    num_heads: int
    head_dim: int
    dtype: torch.dtype = torch.float16
    # run the whole step on a stream of our own, so the host-side scheduler can
    # enqueue the next batch's work on the default stream meanwhile
    dedicated_compute_stream: bool = True

    @property
    def hidden_size(self):
        return self.num_heads * self.head_dim
