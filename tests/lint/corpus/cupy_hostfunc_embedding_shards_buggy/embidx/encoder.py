"""Wraps a torch sentence encoder; its output is handed to cupy through the CUDA Array
Interface (same memory, no copy). Both run on the legacy default stream here."""

import cupy
import torch


class TorchEncoder:
    def __init__(self, model: torch.nn.Module, device: str = "cuda"):
        self.model = model.to(device).eval().half()
        self.device = device

    @torch.inference_mode()
    def encode(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> cupy.ndarray:
        input_ids = input_ids.to(self.device, non_blocking=True)
        attention_mask = attention_mask.to(self.device, non_blocking=True)
        hidden = self.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1)
        return cupy.asarray(pooled.float())
