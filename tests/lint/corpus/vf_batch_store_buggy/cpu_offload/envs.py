"""Tunables for the CPU offloading tier.

Values here are read once at import time by the worker; keep them plain
constants so they can be overridden by the launcher before import.
"""

import os

from cuda.bindings import driver

# Number of pinned CPU blocks reserved per layer.
NUM_CPU_BLOCKS = int(os.environ.get("VF_OFFLOAD_CPU_BLOCKS", "4096"))

# Upper bound on copies packed into one cuMemcpyBatchAsync call.
MAX_BATCH_DESCRIPTORS = 8192

# Store direction: GPU KV blocks -> pinned host pool.
STORE_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY

# Load direction: pinned host pool -> GPU KV blocks.  The host pool is never
# rewritten while a load that reads it is in flight (the scheduler pins the
# CPU block until the load finishes), so the driver may read it early.
LOAD_SRC_ACCESS_ORDER = driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY

PREFER_OVERLAP = True
