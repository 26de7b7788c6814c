from dataclasses import dataclass

from .constants import BLOCK_TOKENS


@dataclass(frozen=True)
class SpillConfig:
    num_device_blocks: int
    num_layers: int
    num_kv_heads: int
    head_dim: int
    spill_dir: str
    staging_slots: int = 4
    io_workers: int = 2
    verify_digest: bool = False
    device_id: int = 0

    @property
    def block_elems(self) -> int:
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * BLOCK_TOKENS
