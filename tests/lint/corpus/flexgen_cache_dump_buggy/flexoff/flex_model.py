from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Callable, Optional

import torch

from .batch_copy import batch_d2h
from .device import ACC, HostKV, StreamBundle, TorchDisk
from .policy import CACHE_FILE_FMT, Policy

logger = logging.getLogger(__name__)

LayerFn = Callable[[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, int], torch.Tensor]


class OffloadedDecoder:
    def __init__(self, policy: Policy, layers: list[LayerFn], cpu_weights: list[torch.Tensor],
                 cache_shape: tuple[int, ...], offload_dir: str, dtype=torch.float16) -> None:
        self.policy = policy
        self.layers = layers
        self.cpu_weights = cpu_weights
        self.num_layers = len(layers)
        self.streams = StreamBundle.create()
        self.device = torch.device(ACC.current_device())
        self.cache_gpu = [(torch.zeros(cache_shape, dtype=dtype, device=self.device),
                           torch.zeros(cache_shape, dtype=dtype, device=self.device))
                          for _ in range(self.num_layers)]
        self.cache_host = [HostKV(torch.empty(cache_shape, dtype=dtype, pin_memory=True),
                                  torch.empty(cache_shape, dtype=dtype, pin_memory=True))
                           for _ in range(self.num_layers)]
        n_disk = int(self.num_layers * policy.cache_disk_percent / 100)
        self.disk_layers = set(range(self.num_layers - n_disk, self.num_layers))
        self.disk = TorchDisk(offload_dir, policy.disk_workers, verify=policy.verify_offload)
        self._store_done = [ACC.Event() for _ in range(self.num_layers)]
        self._dumps: list[Optional[Future]] = [None] * self.num_layers
        self._weights: list[Optional[torch.Tensor]] = [None] * self.num_layers
        self._weight_ready = [ACC.Event() for _ in range(self.num_layers)]

    def load_weight(self, j: int) -> None:
        if j >= self.num_layers:
            return
        with ACC.stream(self.streams.load_weight):
            dst = torch.empty_like(self.cpu_weights[j], device=self.device)
            dst.copy_(self.cpu_weights[j], non_blocking=True)
        self._weights[j] = dst
        self._weight_ready[j].record(self.streams.load_weight)

    def compute_layer(self, j: int, hidden: torch.Tensor, pos: int) -> torch.Tensor:
        compute = self.streams.compute
        compute.wait_event(self._weight_ready[j])
        compute.wait_event(self._store_done[j])
        k, v = self.cache_gpu[j]
        w = self._weights[j]
        w.record_stream(compute)
        out = self.layers[j](hidden, w, k, v, pos)
        self._weights[j] = None
        return out

    def store_cache(self, j: int) -> None:
        if self._dumps[j] is not None:
            self._dumps[j].result()
        ready = ACC.Event()
        ready.record(self.streams.compute)
        store = self.streams.store_cache
        store.wait_event(ready)
        host = self.cache_host[j]
        batch_d2h([host.k, host.v], list(self.cache_gpu[j]), store)
        self._store_done[j].record(store)
        if j in self.disk_layers:
            self._dumps[j] = self.disk.dump(CACHE_FILE_FMT.format(layer=j), host, self._store_done[j])

    def generation_loop_overlap(self, hidden: torch.Tensor, start_pos: int, num_steps: int) -> torch.Tensor:
        for step in range(num_steps):
            pos = start_pos + step
            self.load_weight(0)
            for j in range(self.num_layers):
                self.load_weight(j + 1)
                hidden = self.compute_layer(j, hidden, pos)
                self.store_cache(j)
            logger.debug("decode step %d done", step)
        for fut in self._dumps:
            if fut is not None:
                fut.result()
        return hidden
