import torch

TOKENS_PER_BLOCK = 32
KV_DTYPE = torch.bfloat16
XFER_STREAM_PRIORITY = -1
