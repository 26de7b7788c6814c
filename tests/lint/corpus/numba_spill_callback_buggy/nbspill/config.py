"""Settings of the paged KV pool and of its disk spill tier."""
import os
from dataclasses import dataclass, field


@dataclass(frozen=True)
class SpillConfig:
    num_pages: int = 1024
    page_tokens: int = 16
    token_width: int = 256          # heads * head_dim of one token's K (V is the next page)
    staging_slots: int = 8
    low_watermark: int = 32         # spill when fewer free pages than this remain
    evict_batch: int = 16
    spill_dir: str = field(default_factory=lambda: os.environ.get("NBSPILL_DIR", "/tmp/nbspill"))

    @property
    def page_elems(self) -> int:
        return self.page_tokens * self.token_width
