from dataclasses import dataclass


@dataclass(frozen=True)
class KvPoolLayout:
    """Per-layer base pointers of the primary KV pool (one tensor per layer)."""
    layer_base_ptrs: tuple[int, ...]
    bytes_per_block: int

    def spans(self, block_ids: list[int]) -> tuple[list[int], list[int]]:
        srcs: list[int] = []
        sizes: list[int] = []
        for base in self.layer_base_ptrs:
            for block_id in block_ids:
                srcs.append(base + block_id * self.bytes_per_block)
                sizes.append(self.bytes_per_block)
        return srcs, sizes
