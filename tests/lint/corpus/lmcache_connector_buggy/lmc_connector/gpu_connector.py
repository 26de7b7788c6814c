"""Moves KV data between vLLM's paged GPU cache and contiguous staging memory."""

from __future__ import annotations

import torch


class VLLMPagedMemGPUConnector:
    """Gathers the tokens of one layer into a per-layer contiguous GPU buffer.

    vLLM lays out a layer as ``[2, num_blocks, block_size, num_kv_heads, head_size]``;
    the staging buffer is ``[2, max_tokens, num_kv_heads, head_size]``.
    """

    def __init__(
        self,
        num_layers: int,
        num_kv_heads: int,
        head_size: int,
        dtype: torch.dtype,
        device: torch.device,
        max_tokens: int,
    ) -> None:
        self.max_tokens = max_tokens
        self._staging = [
            torch.empty((2, max_tokens, num_kv_heads, head_size), dtype=dtype, device=device)
            for _ in range(num_layers)
        ]

    def gather_layer(
        self, layer_idx: int, kv_layer: torch.Tensor, slot_mapping: torch.Tensor
    ) -> torch.Tensor:
        num_tokens = slot_mapping.numel()
        if num_tokens > self.max_tokens:
            raise ValueError(f"{num_tokens} tokens exceed staging size {self.max_tokens}")
        staging = self._staging[layer_idx]
        flat = kv_layer.flatten(1, 2)
        for kv in range(2):
            torch.index_select(flat[kv], 0, slot_mapping, out=staging[kv, :num_tokens])
        return staging[:, :num_tokens]
