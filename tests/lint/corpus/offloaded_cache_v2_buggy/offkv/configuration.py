from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class OffloadedCacheConfig:
    """Settings for a layer-wise CPU-offloaded key/value cache."""

    offload_device: str = "cpu"
    pin_memory: bool = True
    # Layers below this count are never moved to host memory.
    min_offload_layers: int = 2
    device: Optional[torch.device] = None

    def resolved_device(self, like: torch.Tensor) -> torch.device:
        return self.device if self.device is not None else like.device
