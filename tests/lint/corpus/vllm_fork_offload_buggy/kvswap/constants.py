# SPDX-License-Identifier: Apache-2.0
"""Numeric values of the CUDA runtime enums used by the DMA path."""

# cudaMemcpySrcAccessOrder
SRC_ACCESS_ORDER_STREAM = 1
SRC_ACCESS_ORDER_DURING_API_CALL = 2
SRC_ACCESS_ORDER_ANY = 3

# cudaMemLocationType
MEM_LOCATION_DEVICE = 1
MEM_LOCATION_HOST = 2

# cudaMemcpyFlags
MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE = 0x1

OP_STORE = "store"  # paged GPU blocks -> pinned CPU blocks
OP_LOAD = "load"  # pinned CPU blocks -> paged GPU blocks

SRC_ACCESS_ORDER_BY_OP = {
    OP_STORE: SRC_ACCESS_ORDER_DURING_API_CALL,
    OP_LOAD: SRC_ACCESS_ORDER_ANY,
}
