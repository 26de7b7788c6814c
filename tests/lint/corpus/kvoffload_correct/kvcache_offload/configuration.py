from dataclasses import dataclass
from typing import Optional

from .constants import DEFAULT_OFFLOAD_DEVICE


@dataclass
class OffloadedCacheConfig:
    """Options for the layer-wise offloaded key/value cache."""

    offload_device: str = DEFAULT_OFFLOAD_DEVICE
    pin_memory: bool = True
    stream_priority: int = 0
    device_index: Optional[int] = None

    def to_dict(self) -> dict:
        return {
            "offload_device": self.offload_device,
            "pin_memory": self.pin_memory,
            "stream_priority": self.stream_priority,
            "device_index": self.device_index,
        }
