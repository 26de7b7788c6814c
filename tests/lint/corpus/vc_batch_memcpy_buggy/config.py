"""Transfer attributes for the batched block copies."""

from cuda.bindings import driver

GPU = "GPU"
CPU = "CPU"

COPY_FLAGS = driver.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE

# Source access order per (src_medium, dst_medium).
SRC_ACCESS_ORDER = {
    (GPU, CPU): driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
    # CPU blocks are only loaded after their store job reported finished and
    # are pinned by the scheduler until the load completes.
    (CPU, GPU): driver.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
}

MAX_INFLIGHT_TRANSFERS = 64
