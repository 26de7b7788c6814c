"""Drives the layer-wise generator from the model runner's layer hooks."""

from typing import Dict, List, Optional

import torch

from .gpu_connector import VLLMPagedMemLayerwiseGPUConnector


class LayerwiseRetriever:
    """Exposes start_load_kv / wait_for_layer_load like a vLLM KV connector.

    `cpu_store` maps a request's prefix key to per-layer pinned memory
    objects ([2, T, hidden] each) that were fully written by an earlier,
    already-synchronised store."""

    def __init__(self, connector: VLLMPagedMemLayerwiseGPUConnector,
                 cpu_store: Dict[str, list]):
        self.connector = connector
        self.cpu_store = cpu_store
        self._gen = None
        self._next_layer = 0

    def start_load_kv(self, key: str, slot_mapping: torch.Tensor) -> bool:
        layer_objs: Optional[List] = self.cpu_store.get(key)
        if layer_objs is None:
            return False
        self._gen = self.connector.batched_to_gpu(layer_objs, slot_mapping)
        self._next_layer = 0
        return True

    def wait_for_layer_load(self, layer_id: int) -> None:
        """Called right before attention of `layer_id` on the compute stream."""
        if self._gen is None:
            return
        while self._next_layer <= layer_id:
            try:
                self._next_layer = next(self._gen) + 1
            except StopIteration:
                self._gen = None
                return

    def finish(self) -> None:
        if self._gen is not None:
            for _ in self._gen:
                pass
            self._gen = None
