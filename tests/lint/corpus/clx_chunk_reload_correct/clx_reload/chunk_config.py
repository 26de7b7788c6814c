"""Chunk layout for host-resident fp16 parameter chunks."""
import torch

CHUNK_NUMEL = 32 * 1024 * 1024
CHUNK_DTYPE = torch.float16
PIN_HOST_CHUNKS = True
KEEP_GATHERED = False
