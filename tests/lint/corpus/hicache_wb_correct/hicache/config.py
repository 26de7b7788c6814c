from dataclasses import dataclass

WRITE_POLICIES = ("write_through", "write_through_selective", "write_back")
IO_BACKENDS = ("direct",)


@dataclass
class HiCacheConfig:
    page_size: int = 64
    host_to_device_ratio: float = 2.0
    write_policy: str = "write_through"
    io_backend: str = "direct"
    pin_memory: bool = True

    def __post_init__(self):
        if self.write_policy not in WRITE_POLICIES:
            raise ValueError(f"Invalid write policy: {self.write_policy}")
        if self.io_backend not in IO_BACKENDS:
            raise ValueError(f"Unsupported io backend: {self.io_backend}")
        if self.host_to_device_ratio < 1.0:
            raise ValueError("host pool must be at least as large as the device pool")
