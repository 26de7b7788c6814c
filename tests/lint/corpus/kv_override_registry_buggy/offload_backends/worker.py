"""Connector worker: builds the side streams and the configured backend, and hands each
transfer a ready event recorded on the compute stream (this thread's current stream). Which
backend class runs is decided by configuration, so every backend's override is reachable."""

import torch

from offload_backends.registry import create_backend


class PluggableOffloadWorker:
    def __init__(self, extra_config, num_cpu_blocks):
        self.backend_name = extra_config.get("copy_backend", "tensor")
        self.num_cpu_blocks = num_cpu_blocks
        self.backend = None
        self.inflight = {}

    def register_kv_caches(self, kv_caches):
        gpu_caches = list(kv_caches.values())
        cpu_caches = [
            torch.empty((self.num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        device = gpu_caches[0].device
        store_stream = torch.cuda.Stream(device=device)
        load_stream = torch.cuda.Stream(device=device)
        self.backend = create_backend(self.backend_name, gpu_caches, cpu_caches, store_stream, load_stream)

    def start_load_kv(self, req_id, cpu_blocks, gpu_blocks):
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.inflight[req_id] = self.backend.launch_load(cpu_blocks, gpu_blocks, ready)

    def wait_for_save(self, req_id, gpu_blocks, cpu_blocks):
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.inflight[req_id] = self.backend.launch_store(gpu_blocks, cpu_blocks, ready)

    def get_finished(self):
        done = {req_id for req_id, event in self.inflight.items() if event.query()}
        for req_id in done:
            del self.inflight[req_id]
        return done
