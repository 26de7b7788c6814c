from dataclasses import dataclass

MEMCPY_HOST_TO_DEVICE = 1
MEMCPY_DEVICE_TO_HOST = 2
MEM_LOCATION_DEVICE = 1
MEM_LOCATION_HOST = 2


@dataclass(frozen=True)
class SwapConfig:
    num_gpu_blocks: int
    num_cpu_blocks: int
    block_bytes: int
    device_index: int = 0
    src_access_order: int = 2
    prefetch_depth: int = 8
