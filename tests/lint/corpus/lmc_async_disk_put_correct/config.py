"""Backend configuration."""

import torch

CHUNK_SIZE = 256
KV_DTYPE = torch.float16
DISK_WORKERS = 4
HOT_CACHE_CHUNKS = 512
DISK_FILE_SUFFIX = ".kvcache"
