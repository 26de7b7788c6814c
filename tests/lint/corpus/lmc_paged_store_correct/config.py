"""Static knobs for the store path."""

import torch

CHUNK_SIZE = 256
KV_DTYPE = torch.float16
STORE_STREAM = "store"
LOAD_STREAM = "load"
MAX_LOCAL_CPU_CHUNKS = 4096
