from dataclasses import dataclass, field
from typing import List


@dataclass
class ActivationOffloadConfig:
    """Fine-grained activation offloading options."""

    offload_modules: List[str] = field(default_factory=lambda: ["mlp_fc1"])
    """Modules whose saved-for-backward activations are moved to host memory."""

    min_offloaded_tensor_size: int = 1024 * 1024
    """Tensors with fewer elements than this stay on the device."""

    num_copy_workers: int = 1
