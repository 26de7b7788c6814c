"""Prefix snapshots of a quantized static KV cache, copied to pinned host memory for reuse."""
