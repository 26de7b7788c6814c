"""Block layouts: where a block's bytes live inside a registered allocation."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LayoutConfig:
    num_blocks: int
    num_layers: int
    outer_dim: int  # 2 for separate K and V, 1 for MLA
    page_size: int
    inner_dim: int  # num_kv_heads * head_dim
    dtype_width_bytes: int = 2

    def __post_init__(self) -> None:
        if self.outer_dim not in (1, 2):
            raise ValueError(f"outer_dim must be 1 or 2, got {self.outer_dim}")


class FullyContiguous:
    """``[num_blocks, num_layers, outer_dim, page_size, inner_dim]`` in one region."""

    def __init__(self, config: LayoutConfig, base_addr: int) -> None:
        self.config = config
        self.base_addr = base_addr

    @property
    def memory_region_size(self) -> int:
        c = self.config
        return c.page_size * c.inner_dim * c.dtype_width_bytes

    @property
    def block_stride_bytes(self) -> int:
        c = self.config
        return c.num_layers * c.outer_dim * self.memory_region_size

    @property
    def required_bytes(self) -> int:
        return self.config.num_blocks * self.block_stride_bytes

    def block_addr(self, block_id: int) -> int:
        if not 0 <= block_id < self.config.num_blocks:
            raise IndexError(f"block {block_id} out of range")
        return self.base_addr + block_id * self.block_stride_bytes

    def layer_addr(self, block_id: int, layer: int, outer: int = 0) -> int:
        offset = (layer * self.config.outer_dim + outer) * self.memory_region_size
        return self.block_addr(block_id) + offset
