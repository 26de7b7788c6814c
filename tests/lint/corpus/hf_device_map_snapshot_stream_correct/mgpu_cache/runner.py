"""Prefill a shared prefix once, snapshot its cache, and persist it."""

import torch

from .snapshot import PromptCacheSnapshotter
from .static_cache import StaticCache


def split_layer_device_map(num_layers, num_gpus):
    per_gpu = (num_layers + num_gpus - 1) // num_gpus
    return {i: f"cuda:{i // per_gpu}" for i in range(num_layers)}


class PipelinedDecoder(torch.nn.Module):
    """Embedding on the first device, each decoder layer on its device from the map."""

    def __init__(self, embed, layers, layer_device_map):
        super().__init__()
        self.embed = embed.to("cuda:0")
        self.layer_device_map = layer_device_map
        self.layers = torch.nn.ModuleList(
            layer.to(layer_device_map[i]) for i, layer in enumerate(layers))

    @torch.no_grad()
    def prefill(self, input_ids, cache):
        positions = {d: torch.arange(input_ids.shape[1], device=d) for d in set(self.layer_device_map.values())}
        hidden = self.embed(input_ids.to("cuda:0"))
        for idx, layer in enumerate(self.layers):
            device = self.layer_device_map[idx]
            hidden = layer(hidden.to(device), cache, idx, positions[device])
        # stays on the last device: a prefix cache needs no logits
        return hidden


def build_prefix_cache(embed, layers, prefix_ids, cfg, path):
    device_map = split_layer_device_map(len(layers), torch.cuda.device_count())
    model = PipelinedDecoder(embed, layers, device_map)
    cache = StaticCache(len(layers), prefix_ids.shape[0], cfg.num_key_value_heads,
                        cfg.max_position_embeddings, cfg.head_dim, torch.bfloat16, device_map)
    model.prefill(prefix_ids, cache)
    snapshotter = PromptCacheSnapshotter(cache)
    snapshotter.snapshot(prefix_ids.shape[1])
    snapshotter.save(path)
    return cache
