"""Worker-side connector: hooks into the forward pass layer by layer."""

from __future__ import annotations

import torch

from cpu_connector.copy_thread import KVCopyThread
from cpu_connector.metadata import CpuConnectorMetadata, SaveJob


class CpuConnectorWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self._meta: CpuConnectorMetadata | None = None
        self._copier: KVCopyThread | None = None

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        cpu_caches = {
            name: torch.empty(
                (self.num_cpu_blocks, *t.shape[1:]),
                dtype=t.dtype,
                device="cpu",
                pin_memory=True,
            )
            for name, t in kv_caches.items()
        }
        device = next(iter(kv_caches.values())).device
        self._copier = KVCopyThread(kv_caches, cpu_caches, device)
        self._copier.start()

    def bind_connector_metadata(self, meta: CpuConnectorMetadata) -> None:
        self._meta = meta

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata) -> None:
        """Called by the attention layer after it wrote kv_layer."""
        if self._meta is None or not self._meta.saves:
            return
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self._copier.submit(
            SaveJob(
                layer_name=layer_name,
                block_mapping=self._meta.block_mapping(),
                ready=ready,
                req_ids=tuple(s.req_id for s in self._meta.saves),
            )
        )

    def wait_for_save(self) -> None:
        self._copier.jobs.join()
        self._meta = None

    def get_finished(self) -> set[str]:
        finished = set()
        with self._copier._lock:
            for req_id, ev in list(self._copier.done_events.items()):
                if ev.query():
                    finished.add(req_id)
                    del self._copier.done_events[req_id]
        return finished
