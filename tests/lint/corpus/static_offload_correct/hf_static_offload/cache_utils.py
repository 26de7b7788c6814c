import logging
from typing import Any, Dict, List, Optional, Tuple

import torch

from .configuration import StaticCacheConfig
from .device_utils import compute_stream, new_event, new_stream, stream_context
from .transfer import load_layer_into_slot, write_back_slot

logger = logging.getLogger(__name__)

_NUM_SLOTS = 2


class OffloadedStaticKVCache:
    """
    Static-shape key/value cache with all layers but the first kept in pinned
    host memory. Two device slots hold the layer being computed and the one
    being prefetched; slots alternate by layer parity.
    """

    def __init__(self, config: StaticCacheConfig):
        self.config = config
        self.device = torch.device(config.device)
        self.num_layers = config.num_hidden_layers
        kv_shape = (2,) + config.layer_shape

        self._layer0_kv = torch.zeros(kv_shape, dtype=config.dtype, device=self.device)
        self._host_kv: List[Optional[torch.Tensor]] = [None]
        for _ in range(1, self.num_layers):
            self._host_kv.append(
                torch.zeros(kv_shape, dtype=config.dtype, device=config.offload_device, pin_memory=True)
            )
        self._slots_kv = [torch.empty(kv_shape, dtype=config.dtype, device=self.device) for _ in range(_NUM_SLOTS)]
        self._slot_owner: List[Optional[int]] = [None] * _NUM_SLOTS

        self._prefetch_stream = new_stream(self.device)
        self._slot_loaded = [new_event(self.device) for _ in range(_NUM_SLOTS)]
        self._slot_released = [new_event(self.device) for _ in range(_NUM_SLOTS)]
        main = compute_stream(self.device)
        for event in self._slot_released:
            event.record(main)

    def get_max_cache_shape(self) -> int:
        return self.config.max_cache_len

    def update(
        self,
        key_states: torch.Tensor,
        value_states: torch.Tensor,
        layer_idx: int,
        cache_kwargs: Optional[Dict[str, Any]] = None,
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        cache_position = cache_kwargs.get("cache_position") if cache_kwargs else None
        if cache_position is None:
            cache_position = torch.arange(key_states.shape[-2], device=self.device)
        main = compute_stream(self.device)

        prev_idx = layer_idx - 1 if layer_idx > 0 else self.num_layers - 1
        if prev_idx > 0:
            # Attention for the previous layer has been issued on the main stream.
            self._slot_released[prev_idx % _NUM_SLOTS].record(main)

        if layer_idx == 0:
            kv = self._layer0_kv
        else:
            slot = layer_idx % _NUM_SLOTS
            if self._slot_owner[slot] != layer_idx:
                self._prefetch_layer(layer_idx)
            main.wait_event(self._slot_loaded[slot])
            kv = self._slots_kv[slot]

        k_out, v_out = kv[0], kv[1]
        k_out.index_copy_(2, cache_position, key_states)
        v_out.index_copy_(2, cache_position, value_states)

        if layer_idx + 1 < self.num_layers:
            self._prefetch_layer(layer_idx + 1)
        return k_out, v_out

    def _prefetch_layer(self, layer_idx: int) -> None:
        slot = layer_idx % _NUM_SLOTS
        owner = self._slot_owner[slot]
        if owner == layer_idx:
            return
        with stream_context(self.device, self._prefetch_stream):
            self._prefetch_stream.wait_event(self._slot_released[slot])
            if owner is not None:
                write_back_slot(self._host_kv[owner], self._slots_kv[slot])
            load_layer_into_slot(self._slots_kv[slot], self._host_kv[layer_idx])
            self._slot_loaded[slot].record(self._prefetch_stream)
        self._slot_owner[slot] = layer_idx
        logger.debug("prefetched layer %d into slot %d (evicted %s)", layer_idx, slot, owner)

    def reset(self) -> None:
        main = compute_stream(self.device)
        self._prefetch_stream.synchronize()
        main.wait_stream(self._prefetch_stream)
        self._layer0_kv.zero_()
        for slot_kv in self._slots_kv:
            slot_kv.zero_()
        for host_kv in self._host_kv[1:]:
            host_kv.zero_()
        self._slot_owner = [None] * _NUM_SLOTS
        for event in self._slot_released:
            event.record(main)
