"""Tunables of the CPU offload connector, one module so deployments can patch them: block
sizes, queue depth, and the batch copies' source access order per direction
(CUmemcpySrcAccessOrder: 1 STREAM, 2 DURING_API_CALL, 3 ANY). Bug: stores ask for ANY, which
lets the driver read the GPU KV cache before the store stream's barrier takes effect."""

DEFAULT_BLOCK_ALIGNMENT = 256
MAX_INFLIGHT_JOBS = 64

STORE_SRC_ACCESS_ORDER = 3
LOAD_SRC_ACCESS_ORDER = 3
