"""CPU KV backend and the connector facade the model runner talks to."""

import torch


class CpuLoadBackend:
    def __init__(self, gpu_kv, cpu_kv):
        self.gpu_kv = gpu_kv
        self.cpu_kv = cpu_kv
        self.load_stream = torch.cuda.Stream()
        self.load_done = torch.cuda.Event()

    def submit_loads(self, pairs):
        if not pairs:
            return False
        with torch.cuda.stream(self.load_stream):
            for src, dst in pairs:
                self.gpu_kv[dst].copy_(self.cpu_kv[src], non_blocking=True)
            self.load_done.record()
        return True


class LoadConnector:
    def __init__(self, backend):
        self.backend = backend

    def start_load_kv(self, metadata):
        pairs = list(zip(metadata.cpu_block_ids, metadata.gpu_block_ids))
        return self.backend.submit_loads(pairs)

    def wait_for_load(self):
        torch.cuda.current_stream().wait_event(self.backend.load_done)
