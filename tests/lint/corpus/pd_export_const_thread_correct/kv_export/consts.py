"""Tunables of the export path, one module so deployments can patch them."""

from cuda.bindings import driver

_SrcOrder = driver.CUmemcpySrcAccessOrder

# The source is the live KV cache: it must be read in stream order, after the export stream's
# wait on the step's compute (DURING_API_CALL / ANY would let the driver read it earlier).
EXPORT_SRC_ACCESS_ORDER = _SrcOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM

# cuMemcpyBatchAsync descriptors per call
MAX_COPIES_PER_CALL = 8192

EXPORT_STREAM_PRIORITY = "low"
