"""Worker side: stores are queued from ``wait_for_save`` and loads from ``start_load_kv``, each
with an event recorded on the current (compute) stream when it is requested, which the copy
thread waits on before the batch copy."""

import torch

from kvoff.copy_backend import DmaCopyBackend


class SimpleOffloadWorker:
    def __init__(self, num_cpu_blocks):
        self.num_cpu_blocks = num_cpu_blocks
        self.backend = None
        self.metadata = None
        self.load_events = []
        self.store_events = []
        self.compute_done = None

    def register_kv_caches(self, kv_caches):
        device = next(iter(kv_caches.values())).device
        cpu_caches = {
            name: torch.zeros((self.num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, device="cpu", pin_memory=True)
            for name, t in kv_caches.items()
        }
        load_stream = torch.cuda.Stream(device=device)
        store_stream = torch.cuda.Stream(device=device)
        self.backend = DmaCopyBackend(kv_caches, cpu_caches, device, load_stream, store_stream)

    def bind_connector_metadata(self, metadata):
        self.metadata = metadata

    def start_load_kv(self):
        meta = self.metadata
        if meta is not None and meta.load_cpu_blocks:
            load_ready = torch.Event()
            load_ready.record(torch.cuda.current_stream())
            self.backend.launch_copy(
                meta.load_cpu_blocks,
                meta.load_gpu_blocks,
                False,
                meta.load_event,
                self.load_events,
                wait_event=load_ready,
            )

    def wait_for_save(self):
        meta = self.metadata
        if meta is not None and meta.store_gpu_blocks:
            if self.compute_done is None:
                self.compute_done = torch.Event()
            self.compute_done.record(torch.cuda.current_stream())
            self.backend.launch_copy(
                meta.store_gpu_blocks,
                meta.store_cpu_blocks,
                True,
                meta.store_event,
                self.store_events,
                wait_event=self.compute_done,
            )
