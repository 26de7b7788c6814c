from dataclasses import dataclass


@dataclass(frozen=True)
class PeftCacheConfig:
    num_device_slots: int = 8
    slot_bytes: int = 64 << 20
    max_host_adapters: int = 256
    device_id: int = 0
