from cuda.bindings import driver as cu
from cuda.bindings import runtime as cudart

BOUNCE_BUFFER_BYTES = 256 << 20
TRANSFER_BATCH_BLOCKS = 64

GATHER_ACCESS_ORDER = cu.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
GATHER_FLAGS = cu.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE

H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
