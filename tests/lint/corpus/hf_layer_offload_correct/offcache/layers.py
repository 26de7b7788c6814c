"""One decoder layer's worth of KV cache."""

from typing import Optional

import torch


class DynamicLayer:
    """Grows along the sequence dimension; may live on the accelerator or in (pinned) host memory."""

    is_sliding = False

    def __init__(self):
        self.keys: Optional[torch.Tensor] = None
        self.values: Optional[torch.Tensor] = None
        self.device: Optional[torch.device] = None
        self.is_initialized = False

    def lazy_initialization(self, key_states: torch.Tensor):
        self.dtype, self.device = key_states.dtype, key_states.device
        self.keys = torch.tensor([], dtype=self.dtype, device=self.device)
        self.values = torch.tensor([], dtype=self.dtype, device=self.device)
        self.is_initialized = True

    def mark_used_on(self, stream: torch.cuda.Stream):
        """The tensors were made on the prefetch stream; ``stream`` reads them from now on."""
        if self.is_initialized and self.keys.is_cuda:
            self.keys.record_stream(stream)
            self.values.record_stream(stream)

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor):
        if not self.is_initialized:
            self.lazy_initialization(key_states)
        self.keys = torch.cat([self.keys, key_states], dim=-2)
        self.values = torch.cat([self.values, value_states], dim=-2)
        return self.keys, self.values

    def get_seq_length(self) -> int:
        if not self.is_initialized or self.keys.numel() == 0:
            return 0
        return self.keys.shape[-2]

    def offload(self):
        """Move this layer's tensors to host memory (on whatever stream is current)."""
        if not self.is_initialized:
            return
        stream = torch.cuda.current_stream()
        # the attention of this layer still reads the device copies on the compute stream:
        # keep their memory from being handed out again before the copy has read it
        self.keys.record_stream(stream)
        self.values.record_stream(stream)
        self.keys = self.keys.to("cpu", non_blocking=True)
        self.values = self.values.to("cpu", non_blocking=True)

    def prefetch(self):
        """Bring the layer back next to the compute ahead of time (fresh device tensors)."""
        if self.is_initialized and self.keys.device != self.device:
            self.keys = self.keys.to(self.device, non_blocking=True)
            self.values = self.values.to(self.device, non_blocking=True)


class SlidingWindowLayer(DynamicLayer):
    is_sliding = True

    def __init__(self, sliding_window: int):
        super().__init__()
        self.sliding_window = sliding_window

    def update(self, key_states, value_states):
        keys, values = super().update(key_states, value_states)
        self.keys = self.keys[..., -self.sliding_window + 1 :, :]
        self.values = self.values[..., -self.sliding_window + 1 :, :]
        return keys, values
