"""Shared constants for the hierarchical cache."""

HICACHE_IO_BACKEND_DIRECT = "direct"
HICACHE_LAYOUT_LAYER_FIRST = "layer_first"

DEFAULT_PAGE_SIZE = 64
DEFAULT_HOST_RATIO = 2.0

WRITE_POLICIES = ("write_through", "write_through_selective", "write_back")
