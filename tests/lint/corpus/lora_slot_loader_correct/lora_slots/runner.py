from __future__ import annotations

from dataclasses import dataclass

import torch

from lora_slots.manager import LoRASlotManager
from lora_slots.weights import LoRAAdapterWeights


@dataclass
class LoRABatch:
    input_ids: torch.Tensor
    positions: torch.Tensor
    adapter_ids: list[int]  # -1 for requests without an adapter


class LoRAModelRunner:
    def __init__(self, model, lora_manager: LoRASlotManager, registry: dict[int, LoRAAdapterWeights]):
        self.model = model
        self.lora_manager = lora_manager
        self.registry = registry

    def prefetch(self, adapter_id: int, running: LoRABatch) -> None:
        """Called by the scheduler for waiting requests while ``running`` is on the GPU."""
        busy = {a for a in running.adapter_ids if a >= 0}
        self.lora_manager.activate(self.registry[adapter_id], busy)

    @torch.inference_mode()
    def execute(self, batch: LoRABatch) -> torch.Tensor:
        busy = {a for a in batch.adapter_ids if a >= 0}
        for adapter_id in busy:
            self.lora_manager.activate(self.registry[adapter_id], busy)
        indices = self.lora_manager.prepare_batch(batch.adapter_ids)
        hidden = self.model(
            batch.input_ids,
            batch.positions,
            lora_a_stacked=self.lora_manager.lora_a_stacked,
            lora_b_stacked=self.lora_manager.lora_b_stacked,
            lora_scalings=self.lora_manager.scalings,
            lora_indices=indices,
        )
        self.lora_manager.on_forward_done(batch.adapter_ids)
        return hidden
