from typing import Any, Dict, Optional, Tuple

import torch


class DynamicLayer:
    """A cache layer that grows along the sequence dimension."""

    is_sliding = False

    def __init__(self) -> None:
        self.keys: Optional[torch.Tensor] = None
        self.values: Optional[torch.Tensor] = None
        self.device: Optional[torch.device] = None
        self.is_initialized = False

    def lazy_initialization(self, key_states: torch.Tensor) -> None:
        self.device = key_states.device
        self.is_initialized = True

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        if not self.is_initialized:
            self.lazy_initialization(key_states)
            self.keys = key_states
            self.values = value_states
        else:
            self.keys = torch.cat([self.keys, key_states], dim=-2)
            self.values = torch.cat([self.values, value_states], dim=-2)
        return self.keys, self.values

    def get_seq_length(self) -> int:
        if not self.is_initialized or self.keys.numel() == 0:
            return 0
        return self.keys.shape[-2]

    def offload(self) -> Optional[Tuple[torch.Tensor, torch.Tensor]]:
        """Moves the states to host memory; returns the device tensors that were read."""
        if not self.is_initialized or self.keys.device.type == "cpu":
            return None
        device_keys, device_values = self.keys, self.values
        # expect: KVG001
        self.keys = device_keys.to("cpu", non_blocking=True)
        # expect: KVG001
        self.values = device_values.to("cpu", non_blocking=True)
        return device_keys, device_values

    def prefetch(self) -> None:
        if self.is_initialized and self.keys.device != self.device:
            self.keys = self.keys.to(self.device, non_blocking=True)
            self.values = self.values.to(self.device, non_blocking=True)
