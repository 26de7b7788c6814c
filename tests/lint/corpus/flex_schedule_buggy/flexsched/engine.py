from typing import Callable, List

import torch

from . import cudart
from .disk_writer import DiskCacheWriter
from .link import load_to_device, store_to_host
from .policy import Policy

LayerFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


class OffloadedDecoder:
    """Runs one decoding step layer by layer. Weights live in pinned host
    memory and are loaded into two alternating device slots; each layer's
    new KV entries land in a device slot and are stored back to host."""

    def __init__(self, policy: Policy, host_weights: List[torch.Tensor], kv_shape, layer_fn: LayerFn,
                 device: str = "cuda:0"):
        self.policy = policy
        self.layer_fn = layer_fn
        self.num_layers = len(host_weights)
        self.host_weights = [w.pin_memory() if policy.pin_weight else w for w in host_weights]
        self.weight_slots = [torch.empty_like(host_weights[0], device=device) for _ in range(2)]
        self.kv_slots = [torch.empty(kv_shape, dtype=torch.float16, device=device) for _ in range(2)]
        self.host_cache = [torch.empty(kv_shape, dtype=torch.float16, pin_memory=True)
                           for _ in range(self.num_layers)]
        # without overlap both copy queues fall back to the legacy default stream
        self.load_weight_stream = cudart.stream_create() if policy.overlap else None
        self.store_cache_stream = cudart.stream_create() if policy.overlap else None
        self.writer = DiskCacheWriter(policy.offload_dir)
        self._stored: List[int] = []

    def load_weight(self, j: int) -> None:
        if j < self.num_layers:
            load_to_device(self.weight_slots[j % 2], self.host_weights[j], self.load_weight_stream)

    def compute_layer(self, j: int, hidden: torch.Tensor) -> torch.Tensor:
        return self.layer_fn(hidden, self.weight_slots[j % 2], self.kv_slots[j % 2])

    def store_cache(self, j: int) -> None:
        if 0 <= j < self.num_layers:
            store_to_host(self.host_cache[j], self.kv_slots[j % 2], self.store_cache_stream)
            self._stored.append(j)

    def sync(self) -> None:
        torch.cuda.synchronize()
        for j in self._stored:
            if self.policy.cache_on_disk(j, self.num_layers):
                self.writer.submit(j, self.host_cache[j])
        self._stored.clear()

    @torch.no_grad()
    def decode_step(self, hidden: torch.Tensor) -> torch.Tensor:
        self.writer.drain()
        self.load_weight(0)
        self.sync()
        for j in range(self.num_layers):
            self.load_weight(j + 1)
            hidden = self.compute_layer(j, hidden)
            self.store_cache(j)
            self.sync()
        return hidden
