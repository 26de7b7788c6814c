from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Optional

import torch

from lora_slots.config import LoRAConfig, SlotState
from lora_slots.weights import LoRAAdapterWeights

logger = logging.getLogger(__name__)


class LoRASlotManager:
    """Keeps up to ``max_loras`` adapters resident in stacked GPU weight buffers."""

    def __init__(
        self, config: LoRAConfig, num_layers: int, in_features: int, out_features: int, device
    ) -> None:
        self.config = config
        n, r = config.max_loras, config.max_lora_rank
        self.lora_a_stacked = torch.zeros(
            (n, num_layers, r, in_features), dtype=config.lora_dtype, device=device
        )
        self.lora_b_stacked = torch.zeros(
            (n, num_layers, out_features, r), dtype=config.lora_dtype, device=device
        )
        self.scalings = torch.zeros(n, dtype=torch.float32, device=device)
        self._load_stream = torch.cuda.Stream(device)
        self._slot_ready = [torch.cuda.Event() for _ in range(n)]
        self._slot_state = [SlotState.FREE] * n
        self._slot_adapter: list[Optional[int]] = [None] * n
        self._lru: OrderedDict[int, int] = OrderedDict()  # adapter id -> slot

    def _pick_slot(self, busy: set[int]) -> int:
        for slot, state in enumerate(self._slot_state):
            if state is SlotState.FREE:
                return slot
        for adapter_id, slot in self._lru.items():
            if adapter_id not in busy:
                del self._lru[adapter_id]
                logger.debug("evicting LoRA %d from slot %d", adapter_id, slot)
                return slot
        raise RuntimeError("all LoRA slots are pinned by the running batch")

    def activate(self, weights: LoRAAdapterWeights, busy: set[int]) -> int:
        """Start loading an adapter; the copy overlaps with the running forward."""
        if weights.adapter_id in self._lru:
            self._lru.move_to_end(weights.adapter_id)
            return self._lru[weights.adapter_id]
        slot = self._pick_slot(busy)
        with torch.cuda.stream(self._load_stream):
            # expect: KVG004
            self.lora_a_stacked[slot].copy_(weights.lora_a, non_blocking=True)
            # expect: KVG004
            self.lora_b_stacked[slot].copy_(weights.lora_b, non_blocking=True)
            self.scalings[slot].fill_(weights.scaling)
            self._slot_ready[slot].record()
        self._slot_state[slot] = SlotState.LOADING
        self._slot_adapter[slot] = weights.adapter_id
        self._lru[weights.adapter_id] = slot
        return slot

    def prepare_batch(self, adapter_ids: list[int]) -> torch.Tensor:
        """Map each request to its slot and make the compute stream see finished loads."""
        compute = torch.cuda.current_stream()
        slots = [self._lru[a] if a >= 0 else -1 for a in adapter_ids]
        for slot in set(slots) - {-1}:
            if self._slot_state[slot] is SlotState.LOADING:
                compute.wait_event(self._slot_ready[slot])
                self._slot_state[slot] = SlotState.ACTIVE
        return torch.tensor(slots, dtype=torch.long, device=self.lora_a_stacked.device)

    def on_forward_done(self, adapter_ids: list[int]) -> None:
        for a in adapter_ids:
            if a in self._lru:
                self._lru.move_to_end(a)
