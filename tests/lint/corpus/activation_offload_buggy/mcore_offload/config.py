from dataclasses import dataclass
from typing import Tuple


@dataclass
class ActivationOffloadConfig:
    """Fine-grained activation offloading knobs (see --offload-modules)."""

    offload_modules: Tuple[str, ...] = ("core_attn", "attn_proj", "expert_fc1")
    # Tensors smaller than this stay on the device.
    min_offloaded_tensor_size: int = 1024 * 1024
    # Tensors at least this large are sent to the host as soon as they are saved,
    # instead of waiting for the group to be committed.
    eager_offload_numel: int = 64 * 1024 * 1024
    pin_memory: bool = True
    log_offload_stats: bool = False

    def enabled_for(self, name: str) -> bool:
        return name in self.offload_modules
