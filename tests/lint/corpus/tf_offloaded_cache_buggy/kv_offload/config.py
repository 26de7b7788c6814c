"""Tunables for the offloaded KV cache."""

OFFLOAD_DEVICE = "cpu"
PIN_HOST_MEMORY = True
# The first N layers are never evicted: they are needed right away at the
# start of every decoding step and prefetching them would only add latency.
KEEP_ON_DEVICE_LAYERS = 1
STREAM_NAMES = ("offload", "prefetch")
