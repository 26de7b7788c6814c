"""Worker side of the connector: the scheduler's metadata says which blocks to store and load;
``start_load_kv`` queues loads before the forward, ``get_finished`` queues the step's stores
and reports completed jobs. Bug: the store's ready event is recorded on the store stream
itself, not on the compute stream, so waiting on it orders nothing behind the forward."""

import torch

from cpu_offload.copy_thread import CopyThread


class OffloadWorker:
    def __init__(self, num_cpu_blocks):
        self.num_cpu_blocks = num_cpu_blocks
        self.copier = None
        self.metadata = None
        self.pending = set()

    def register_kv_caches(self, kv_caches):
        gpu_caches = list(kv_caches.values())
        cpu_caches = [
            torch.empty((self.num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        device = gpu_caches[0].device
        self.copier = CopyThread(gpu_caches, cpu_caches, device)

    def bind_connector_metadata(self, metadata):
        self.metadata = metadata

    def start_load_kv(self):
        meta = self.metadata
        if meta is None or not meta.load_cpu_blocks:
            return
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.copier.submit("load", meta.load_job, meta.load_cpu_blocks, meta.load_gpu_blocks, ready)
        self.pending.add(meta.load_job)

    def get_finished(self, finished_req_ids):
        meta = self.metadata
        if meta is not None and meta.store_gpu_blocks:
            ready = torch.cuda.Event()
            ready.record(self.copier.store_stream)
            self.copier.submit(
                "store", meta.store_job, meta.store_gpu_blocks, meta.store_cpu_blocks, ready
            )
            self.pending.add(meta.store_job)
        done = set()
        for job_id, event in list(self.copier.finished):
            if event.query():
                done.add(job_id)
        self.pending -= done
        return done
