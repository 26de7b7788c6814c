"""Tunables of the CPU offload connector, one module so deployments can patch them: block
sizes, queue depth, and the batch copies' source access order per direction
(CUmemcpySrcAccessOrder: 1 STREAM, 2 DURING_API_CALL, 3 ANY). Stores read the live GPU KV
cache and keep STREAM; loads read pinned host memory that no stream writes and may use ANY."""

DEFAULT_BLOCK_ALIGNMENT = 256
MAX_INFLIGHT_JOBS = 64

STORE_SRC_ACCESS_ORDER = 1
LOAD_SRC_ACCESS_ORDER = 3
