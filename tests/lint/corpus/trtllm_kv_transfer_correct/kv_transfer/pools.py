from __future__ import annotations

import enum
from dataclasses import dataclass

from cuda import cudart

from .cuda_utils import check

H2D = cudart.cudaMemcpyKind.cudaMemcpyHostToDevice
D2H = cudart.cudaMemcpyKind.cudaMemcpyDeviceToHost

# One block of one layer is tokens_per_block * num_kv_heads * head_dim * 2 (K and V) * dtype bytes
DEFAULT_TOKENS_PER_BLOCK = 64


class CacheLevel(enum.IntEnum):
    PRIMARY = 0  # device memory
    SECONDARY = 1  # pinned host memory


class TransferDirection(enum.Enum):
    ONBOARD = "onboard"  # secondary -> primary
    OFFLOAD = "offload"  # primary -> secondary


@dataclass(frozen=True)
class BlockRange:
    primary_start: int
    secondary_start: int
    num_blocks: int


class KVCacheBlockPool:
    """Layer-major block pools: row ``l`` holds layer ``l`` of every block.

    A contiguous range of blocks is therefore a 2D region (one row per layer),
    which is what cudaMemcpy2DAsync moves in one call.
    """

    def __init__(self, num_layers: int, block_bytes: int, num_primary_blocks: int, num_secondary_blocks: int) -> None:
        self.num_layers = num_layers
        self.block_bytes = block_bytes
        self.num_primary_blocks = num_primary_blocks
        self.num_secondary_blocks = num_secondary_blocks
        self.primary_pitch = num_primary_blocks * block_bytes
        self.secondary_pitch = num_secondary_blocks * block_bytes
        self.primary_ptr = check(cudart.cudaMalloc(self.primary_pitch * num_layers))
        self.secondary_ptr = check(cudart.cudaMallocHost(self.secondary_pitch * num_layers))

    def primary_block_addr(self, block: int) -> int:
        return int(self.primary_ptr) + block * self.block_bytes

    def secondary_block_addr(self, block: int) -> int:
        return int(self.secondary_ptr) + block * self.block_bytes

    def release(self) -> None:
        check(cudart.cudaFree(self.primary_ptr))
        check(cudart.cudaFreeHost(self.secondary_ptr))
