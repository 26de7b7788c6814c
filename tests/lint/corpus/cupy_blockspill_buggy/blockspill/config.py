import os
from dataclasses import dataclass


@dataclass(frozen=True)
class SpillConfig:
    spill_dir: str = "/tmp/kv_spill"
    block_bytes: int = 2 << 20
    staging_slots: int = 4
    max_pending: int = 64
    fsync: bool = False

    @classmethod
    def from_env(cls) -> "SpillConfig":
        return cls(
            spill_dir=os.environ.get("KV_SPILL_DIR", cls.spill_dir),
            staging_slots=int(os.environ.get("KV_SPILL_STAGING_SLOTS", cls.staging_slots)),
            fsync=os.environ.get("KV_SPILL_FSYNC", "0") == "1",
        )
