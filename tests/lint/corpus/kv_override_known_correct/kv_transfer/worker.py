"""Worker that always overlaps transfers: it builds the side-stream backend, so each store and
load runs through the subclass's hook (a wait on the compute stream) before its copies."""

import torch

from kv_transfer.backends import SideStreamTransferBackend


class OverlappedOffloadWorker:
    def __init__(self, num_cpu_blocks):
        self.num_cpu_blocks = num_cpu_blocks
        self.backend = None
        self.inflight = {}

    def register_kv_caches(self, kv_caches):
        self.backend = SideStreamTransferBackend(list(kv_caches.values()), self.num_cpu_blocks)

    def start_load_kv(self, req_id, cpu_blocks, gpu_blocks):
        self.inflight[req_id] = self.backend.load(cpu_blocks, gpu_blocks)

    def wait_for_save(self, req_id, gpu_blocks, cpu_blocks):
        self.inflight[req_id] = self.backend.store(gpu_blocks, cpu_blocks)

    def get_finished(self):
        done = {req_id for req_id, event in self.inflight.items() if event.query()}
        for req_id in done:
            del self.inflight[req_id]
        return done
