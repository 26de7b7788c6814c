"""Connector worker given its copy backend by the engine (any object with ``launch_store`` and
``launch_load``). Every store and load gets a ready event recorded on the compute stream (this
thread's current stream) when it is requested; whichever backend it is, it waits on it."""

import torch


class ExternalBackendWorker:
    def __init__(self, backend):
        self.backend = backend
        self.inflight = {}

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
