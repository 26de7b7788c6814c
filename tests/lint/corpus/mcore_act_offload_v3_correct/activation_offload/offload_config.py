from dataclasses import dataclass, field
from typing import Tuple


@dataclass
class ActivationOffloadConfig:
    offload_modules: Tuple[str, ...] = field(default_factory=lambda: ("core_attn", "attn_proj"))
    min_offloaded_tensor_size: int = 1024 * 1024
    """Tensors with fewer elements stay on the device."""

    eager_offload_numel: int = 64 * 1024 * 1024
    """Tensors at least this large start their D2H copy as soon as they are saved for backward."""
