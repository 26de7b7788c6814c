# coding=utf-8
import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .constants import HOST_CACHE_PIN_MEMORY, NUM_DEVICE_SLOTS
from .device_utils import accelerator_device, compute_stream, new_side_stream, stream_context
from .transfer import stage_layer, write_back_tokens

logger = logging.getLogger(__name__)


class OffloadedStaticKVCache:
    """Static-shape KV cache whose layers live in pinned host memory.

    Layer 0 stays on device. For every other layer two device slots are
    cycled; while layer ``i`` runs, layer ``i + 1`` is prefetched on a
    dedicated stream into the other slot.
    """

    def __init__(self, num_layers: int, max_batch_size: int, num_kv_heads: int, head_dim: int,
                 max_cache_len: int, dtype: torch.dtype = torch.float16,
                 device: Optional[torch.device] = None) -> None:
        self.num_layers = num_layers
        self.device = accelerator_device(device)
        shape = (max_batch_size, num_kv_heads, max_cache_len, head_dim)
        self.resident: Tuple[torch.Tensor, torch.Tensor] = (
            torch.zeros(shape, dtype=dtype, device=self.device),
            torch.zeros(shape, dtype=dtype, device=self.device),
        )
        self.host_layers: List[Tuple[torch.Tensor, torch.Tensor]] = [
            (torch.zeros(shape, dtype=dtype, pin_memory=HOST_CACHE_PIN_MEMORY),
             torch.zeros(shape, dtype=dtype, pin_memory=HOST_CACHE_PIN_MEMORY))
            for _ in range(num_layers)
        ]
        self.device_slots: List[Tuple[torch.Tensor, torch.Tensor]] = [
            (torch.zeros(shape, dtype=dtype, device=self.device),
             torch.zeros(shape, dtype=dtype, device=self.device))
            for _ in range(NUM_DEVICE_SLOTS)
        ]
        self._prefetch_stream = new_side_stream(self.device)

    def _slot_for(self, layer_idx: int) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.device_slots[layer_idx & 1]

    def _prefetch_layer(self, layer_idx: int) -> None:
        if layer_idx >= self.num_layers:
            return
        with stream_context(self._prefetch_stream):
            stage_layer(self._slot_for(layer_idx), self.host_layers[layer_idx])

    def update(self, key_states: torch.Tensor, value_states: torch.Tensor, layer_idx: int,
               cache_kwargs: Optional[Dict[str, Any]] = None) -> Tuple[torch.Tensor, torch.Tensor]:
        cache_position = cache_kwargs["cache_position"]
        if layer_idx == 0:
            k_out, v_out = self.resident
        else:
            compute_stream(self.device).wait_stream(self._prefetch_stream)
            k_out, v_out = self._slot_for(layer_idx)

        self._prefetch_layer(layer_idx + 1)

        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)
        if layer_idx != 0:
            write_back_tokens(self.host_layers[layer_idx], key_states, value_states, cache_position)
        return k_out, v_out

    def reset(self) -> None:
        self._prefetch_stream.synchronize()
        for k, v in self.host_layers:
            k.zero_()
            v.zero_()
        self.resident[0].zero_()
        self.resident[1].zero_()
        logger.debug("offloaded static cache reset (%d layers)", self.num_layers)
