from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Policy:
    """The part of FlexGen's policy this decoder uses."""

    gpu_batch_size: int
    num_gpu_batches: int
    max_seq_len: int
    hidden_size: int
    dtype: torch.dtype = torch.float16
    overlap: bool = True
