"""Worker side of a layerwise KV offload connector (load + store)."""

from __future__ import annotations

from dataclasses import dataclass

import torch

from kv_load import config
from kv_load.streams import fence, host_index, make_stream


@dataclass
class LoadSpec:
    req_id: str
    cpu_block_ids: list[int]
    gpu_block_ids: list[int]


@dataclass
class StoreSpec:
    req_id: str
    gpu_block_ids: list[int]
    cpu_block_ids: list[int]


class LayerwiseOffloadWorker:
    def __init__(self, kv_caches: dict[str, torch.Tensor]):
        self.kv_caches = kv_caches
        self.device = next(iter(kv_caches.values())).device
        self.cpu_caches = {
            name: torch.empty((config.NUM_CPU_BLOCKS, *t.shape[1:]), dtype=t.dtype,
                              device="cpu", pin_memory=True)
            for name, t in kv_caches.items()
        }
        self.load_stream = make_stream(config.LOAD_STREAM_PRIORITY)
        self.store_stream = make_stream(config.STORE_STREAM_PRIORITY)
        self._layer_ready: dict[str, torch.cuda.Event] = {}
        self.loaded_block_ids: torch.Tensor | None = None

    # ---- load path -------------------------------------------------------
    def start_load_kv(self, loads: list[LoadSpec]) -> None:
        """Called before the forward pass; issues all loads asynchronously."""
        self._layer_ready.clear()
        if not loads:
            return
        gpu_ids = [g for spec in loads for g in spec.gpu_block_ids]
        cpu_ids = [c for spec in loads for c in spec.cpu_block_ids]
        compute = torch.cuda.current_stream()
        with torch.cuda.stream(self.load_stream):
            # Fresh device tensor: only the attention metadata builder reads
            # it, after wait_for_layer_load.
            ids_dev = torch.empty(len(gpu_ids), dtype=torch.int64, device=self.device)
            ids_dev.copy_(host_index(gpu_ids), non_blocking=True)
            ids_dev.record_stream(compute)
            self.loaded_block_ids = ids_dev
            for name, gpu_layer in self.kv_caches.items():
                cpu_layer = self.cpu_caches[name]
                for g, c in zip(gpu_ids, cpu_ids):
                    # expect: KVG004
                    gpu_layer[g].copy_(cpu_layer[c], non_blocking=True)
                ev = torch.cuda.Event()
                ev.record(self.load_stream)
                self._layer_ready[name] = ev

    def wait_for_layer_load(self, layer_name: str) -> None:
        ev = self._layer_ready.get(layer_name)
        if ev is not None:
            torch.cuda.current_stream().wait_event(ev)

    # ---- store path ------------------------------------------------------
    def save_kv_layer(self, layer_name: str, stores: list[StoreSpec]) -> torch.cuda.Event | None:
        if not stores:
            return None
        fence(self.store_stream)
        gpu_layer = self.kv_caches[layer_name]
        cpu_layer = self.cpu_caches[layer_name]
        with torch.cuda.stream(self.store_stream):
            for spec in stores:
                for g, c in zip(spec.gpu_block_ids, spec.cpu_block_ids):
                    cpu_layer[c].copy_(gpu_layer[g], non_blocking=True)
            done = torch.cuda.Event()
            done.record()
        return done
