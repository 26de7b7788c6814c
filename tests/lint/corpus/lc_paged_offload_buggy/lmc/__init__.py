"""Chunked KV offload from vLLM paged memory to pinned CPU and local disk."""
