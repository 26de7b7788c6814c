"""Batch-copy tunables, per direction. Deployments patch this module."""

from cuda.bindings import runtime as cudart

_ORDER = cudart.cudaMemcpySrcAccessOrder

SRC_ACCESS_ORDER = {
    # GPU KV cache -> pinned host: the copy is queued behind the compute event already, so
    # let the driver pick the source up as early as it can
    "store": _ORDER.cudaMemcpySrcAccessOrderDuringApiCall,
    # pinned host -> GPU: nothing writes a host block while a load of it is in flight
    "load": _ORDER.cudaMemcpySrcAccessOrderAny,
}

PREFER_OVERLAP_WITH_COMPUTE = True
MAX_BLOCKS_PER_BATCH = 8192
