"""Connector worker given its copy backend by the engine (any object with ``launch_store`` and
``launch_load``). Bug: the store's ready event is recorded on the compute stream only when the
``order_stores`` option is on, and it is off by default; unrecorded, the event makes the
backend's wait a no-op, and the store reads KV blocks the forward may still be writing."""

import torch


class ExternalBackendWorker:
    def __init__(self, backend, order_stores=False):
        self.backend = backend
        self.order_stores = order_stores
        self.inflight = {}

    def start_load_kv(self, req_id, cpu_blocks, gpu_blocks):
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.inflight[req_id] = self.backend.launch_load(cpu_blocks, gpu_blocks, ready)

    def wait_for_save(self, req_id, gpu_blocks, cpu_blocks):
        ready = torch.cuda.Event()
        if self.order_stores:
            ready.record(torch.cuda.current_stream())
        self.inflight[req_id] = self.backend.launch_store(gpu_blocks, cpu_blocks, ready)

    def get_finished(self):
        done = {req_id for req_id, event in self.inflight.items() if event.query()}
        for req_id in done:
            del self.inflight[req_id]
        return done
