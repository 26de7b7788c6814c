"""Worker side: owns the two side streams and orders them behind the compute stream with the
varargs helper before each hand-off to the DMA backend. Bug: the store path passes the
arguments the wrong way round, so the compute stream waits on the store stream and the store
stream is ordered behind nothing."""

import torch

from dma_offload import sync_utils
from dma_offload.backend import DmaBackend


class DmaOffloadWorker:
    def __init__(self, num_cpu_blocks):
        self.num_cpu_blocks = num_cpu_blocks
        self.load_stream = None
        self.store_stream = None
        self.backend = None
        self.metadata = None
        self.load_events = []
        self.store_events = []

    def register_kv_caches(self, kv_caches):
        gpu_caches = list(kv_caches.values())
        device = gpu_caches[0].device
        cpu_caches = [
            torch.zeros((self.num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        self.load_stream = torch.cuda.Stream(device=device)
        self.store_stream = torch.cuda.Stream(device=device)
        self.backend = DmaBackend(gpu_caches, cpu_caches, device, self.load_stream, self.store_stream)

    def bind_connector_metadata(self, metadata):
        self.metadata = metadata

    def start_load_kv(self):
        meta = self.metadata
        if meta is None or not meta.load_cpu_blocks:
            return
        sync_utils.order_after(torch.cuda.current_stream(), self.load_stream)
        self.backend.launch_copy(
            meta.load_cpu_blocks, meta.load_gpu_blocks, False, meta.load_event, self.load_events
        )

    def wait_for_save(self):
        meta = self.metadata
        if meta is None or not meta.store_gpu_blocks:
            return
        sync_utils.order_after(self.store_stream, torch.cuda.current_stream())
        self.backend.launch_copy(
            meta.store_gpu_blocks, meta.store_cpu_blocks, True, meta.store_event, self.store_events
        )
