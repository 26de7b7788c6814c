from concurrent.futures import Future
from typing import Optional

import torch

from kv_disk_tier.disk_backend import DiskBackend


class DiskOffloadWorker:
    def __init__(self, path: str, num_disk_slots: int):
        self.path = path
        self.num_disk_slots = num_disk_slots
        self._meta = None
        self._stores: list[tuple[Future, list[str]]] = []
        self._loads: list[tuple[Future, list[str]]] = []

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        self.backend = DiskBackend(kv_caches, self.path, self.num_disk_slots)
        low, _ = torch.cuda.Stream.priority_range()
        self.store_stream = torch.cuda.Stream(priority=low)
        self.load_stream = torch.cuda.Stream(priority=low)

    def bind_connector_metadata(self, meta) -> None:
        self._meta = meta

    def start_load_kv(self) -> None:
        meta = self._meta
        if meta is not None and meta.load_gpu_blocks:
            fut = self.backend.launch({"is_store": False, "stream": self.load_stream,
                                       "src": meta.load_disk_slots, "dst": meta.load_gpu_blocks})
            self._loads.append((fut, list(meta.load_req_ids)))

    def wait_for_save(self) -> None:
        meta = self._meta
        if meta is not None and meta.store_gpu_blocks:
            fut = self.backend.launch({"is_store": True, "stream": self.store_stream,
                                       "src": meta.store_gpu_blocks, "dst": meta.store_disk_slots})
            self._stores.append((fut, list(meta.store_req_ids)))

    @staticmethod
    def _drain(inflight: list[tuple[Future, list[str]]]) -> set[str]:
        done: set[str] = set()
        while inflight and inflight[0][0].done() and inflight[0][0].result().query():
            done.update(inflight.pop(0)[1])
        return done

    def get_finished(self) -> tuple[Optional[set[str]], Optional[set[str]]]:
        return self._drain(self._stores) or None, self._drain(self._loads) or None
