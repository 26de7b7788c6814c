"""The model-runner side: paged KV caches per layer and the forward pass that fills them."""

import torch

from .connector import LayerwiseSaveConnector


class PagedRunner:
    def __init__(self, layers, backend, num_blocks=2048, block_size=16, heads=8, head_dim=128):
        self.layers = layers
        self.kv_caches = {
            f"layer.{i}": torch.zeros(num_blocks, 2, block_size, heads, head_dim, dtype=torch.float16, device="cuda")
            for i in range(len(layers))
        }
        self.connector = LayerwiseSaveConnector(backend)
        self.connector.register_kv_caches(self.kv_caches, max_blocks_per_save=256)

    def execute_model(self, hidden, slot_mapping, block_ids, request_key):
        for i, layer in enumerate(self.layers):
            name = f"layer.{i}"
            hidden = layer(hidden, self.kv_caches[name], slot_mapping)
            self.connector.save_kv_layer(name, block_ids, request_key)
        self.connector.wait_for_save()
        return hidden
