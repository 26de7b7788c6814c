"""Worker side: stores are queued from ``wait_for_save`` after a compute-done event recorded on
the current stream; loads are queued from ``start_load_kv``. Bug: loads carry no event, so the
copy thread overwrites GPU blocks that kernels on the compute stream may still be reading."""

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
            self.backend.launch_copy(
                meta.load_cpu_blocks, meta.load_gpu_blocks, False, meta.load_event, self.load_events
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
