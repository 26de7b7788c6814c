"""Tunables of the export path, one module so deployments can patch them."""

from cuda.bindings import driver

_SrcOrder = driver.CUmemcpySrcAccessOrder

# The copy thread is the only one that queues work on the export stream, so nothing ahead of a
# staging copy on that stream can change its source: the driver may read it right away.
EXPORT_SRC_ACCESS_ORDER = _SrcOrder.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL

# cuMemcpyBatchAsync descriptors per call
MAX_COPIES_PER_CALL = 8192

EXPORT_STREAM_PRIORITY = "low"
