from dataclasses import dataclass

DEFAULT_PINNED_POOL_BYTES = 4 << 30
DEFAULT_MAX_ENTRIES = 4096
SPILL_LOGGER_NAME = "kv_spill"


@dataclass(frozen=True)
class SpillConfig:
    pinned_pool_bytes: int = DEFAULT_PINNED_POOL_BYTES
    max_entries: int = DEFAULT_MAX_ENTRIES
    verify_checksum: bool = True
    device_id: int = 0
