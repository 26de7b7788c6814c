"""Reranker settings."""

MAX_BATCH = 1024
FEATURE_DIM = 768
READBACK_WORKERS = 2
THREADS_PER_BLOCK = 128
STREAM_NAMES = ("compute", "h2d", "d2h")
