"""HiCache L2/L3 settings."""

import os

import torch

PAGE_SIZE = 64
KV_DTYPE = torch.float16
WRITE_POLICY = "write_through"
STORAGE_DIR = os.environ.get("SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR", "/tmp/hicache")
BACKUP_POLL_TIMEOUT_S = 1.0
