"""Tunables for host-to-device load back."""

import os

# Loads at or below this many tokens are issued inline on the load stream and
# completed before the scheduler returns, instead of overlapping with forward.
INLINE_LOAD_MAX_TOKENS = int(os.environ.get("SGLANG_HICACHE_INLINE_LOAD_TOKENS", "256"))

# Number of producer/consumer slots shared between the scheduler and forward.
NUM_LAYER_COUNTERS = 3

LAYOUT_LAYER_FIRST = "layer_first"
LAYOUT_PAGE_FIRST = "page_first"
