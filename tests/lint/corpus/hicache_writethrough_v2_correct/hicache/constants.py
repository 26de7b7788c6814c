"""Knobs shared by the hierarchical (device + host) KV cache."""

HICACHE_WRITE_POLICIES = ("write_through", "write_through_selective", "write_back")
HICACHE_IO_BACKENDS = ("direct",)
HICACHE_LAYOUTS = ("layer_first",)

# number of hits before a node is written through to host memory
WRITE_THROUGH_THRESHOLD = 1
WRITE_THROUGH_SELECTIVE_THRESHOLD = 2
