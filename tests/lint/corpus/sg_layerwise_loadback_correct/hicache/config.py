"""HiCache load-back settings."""

import torch

PAGE_SIZE = 32
KV_DTYPE = torch.bfloat16
# producer/consumer counters so that loading batch N+1 overlaps the forward of batch N
NUM_LAYER_COUNTERS = 3
