"""Sizing defaults for the primary and secondary KV block pools."""

TOKENS_PER_BLOCK = 32
KV_FACTOR = 2
DEFAULT_HOST_BLOCKS = 4096
MIN_FREE_PRIMARY_BLOCKS = 8
# Lower number is higher priority; offload yields to the forward pass.
OFFLOAD_STREAM_PRIORITY = 0
