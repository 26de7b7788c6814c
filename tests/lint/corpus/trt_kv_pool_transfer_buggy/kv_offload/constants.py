import enum
from dataclasses import dataclass

try:
    from cuda.bindings import driver as cuda
except ImportError:  # cuda-python < 12.8
    from cuda import cuda


class CacheLevel(enum.IntEnum):
    PRIMARY = 0  # device memory
    SECONDARY = 1  # pinned host memory


@dataclass(frozen=True)
class KvCacheConfig:
    tokens_per_block: int = 64
    num_primary_blocks: int = 4096
    num_secondary_blocks: int = 16384
    enable_partial_reuse: bool = True


# cuMemcpyBatchAsync accepts at most this many copies per call in our build.
MAX_BATCHED_COPIES = 256

# Attributes shared by every batched offload copy.
OFFLOAD_SRC_ACCESS_ORDER = cuda.CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY
OFFLOAD_COPY_FLAGS = cuda.CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE
