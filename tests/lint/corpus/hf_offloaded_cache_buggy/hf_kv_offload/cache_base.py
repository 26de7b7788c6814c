from typing import Any, Optional

import torch


class Cache:
    """Minimal base mirroring `transformers.cache_utils.Cache`."""

    is_compileable = False

    def __init__(self):
        self.key_cache: list[torch.Tensor] = []
        self.value_cache: list[torch.Tensor] = []

    def __len__(self) -> int:
        return len(self.key_cache)

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[dict[str, Any]] = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        raise NotImplementedError("Make sure to implement `update` in a subclass.")

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        if layer_idx >= len(self.key_cache) or self.key_cache[layer_idx].numel() == 0:
            return 0
        return self.key_cache[layer_idx].shape[-2]


def device_module_for(device: torch.device):
    """Return the torch device module (torch.cuda, torch.xpu, ...) backing ``device``."""
    device = torch.device(device)
    if device.type == "cpu":
        raise ValueError("offloaded caches need an accelerator device")
    return torch.get_device_module(device)
