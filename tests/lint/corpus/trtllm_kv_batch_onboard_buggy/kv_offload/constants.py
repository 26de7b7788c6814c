from cuda.bindings import runtime as cudart

OFFLOAD_SRC_ACCESS_ORDER = cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderAny
ONBOARD_SRC_ACCESS_ORDER = cudart.cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderStream
HOST_CACHE_FRACTION = 0.5
