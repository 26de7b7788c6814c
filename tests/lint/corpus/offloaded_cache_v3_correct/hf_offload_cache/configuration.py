from dataclasses import dataclass, field
from typing import List, Optional

import torch


@dataclass
class CacheOffloadConfig:
    """Options controlling how per-layer key/value states move between devices."""

    num_hidden_layers: int
    layer_types: Optional[List[str]] = None
    offload_only_non_sliding: bool = True
    offload_device: torch.device = field(default_factory=lambda: torch.device("cpu"))

    @property
    def is_sliding(self) -> List[bool]:
        if self.layer_types is None:
            return [False] * self.num_hidden_layers
        return [t == "sliding_attention" for t in self.layer_types]
