"""The connector's worker side, called by vLLM's model runner around each forward pass."""

from collections import defaultdict

import numpy as np

from kv_offload_plugin.mediums import CPULoadStoreSpec, GPULoadStoreSpec
from kv_offload_plugin.worker.cpu_gpu import CpuGpuOffloadingHandlers
from kv_offload_plugin.worker.worker import OffloadingWorker


class OffloadingConnectorWorker:
    def __init__(self, block_size_factor, num_cpu_blocks):
        self.block_size_factor = block_size_factor
        self.num_cpu_blocks = num_cpu_blocks
        self.worker = OffloadingWorker()
        self._job_counter = 0
        self._jobs = {}
        self._req_jobs = defaultdict(set)
        self._finished_reqs_waiting_for_store = set()

    def register_kv_caches(self, kv_caches):
        handlers = CpuGpuOffloadingHandlers(list(kv_caches.values()), self.block_size_factor, self.num_cpu_blocks)
        handlers.register(self.worker)

    def _submit(self, req_id, spec, is_store):
        job_id = self._job_counter
        self._job_counter += 1
        self._jobs[job_id] = (req_id, is_store)
        self._req_jobs[req_id].add(job_id)
        assert self.worker.transfer_async(job_id, spec)

    def start_load_kv(self, metadata):
        for req_id, (cpu_blocks, gpu_blocks) in metadata.reqs_to_load.items():
            spec = (CPULoadStoreSpec(np.asarray(cpu_blocks)), GPULoadStoreSpec(np.asarray(gpu_blocks)))
            self._submit(req_id, spec, is_store=False)

    def wait_for_save(self, metadata):
        for req_id, (gpu_blocks, cpu_blocks) in metadata.reqs_to_store.items():
            spec = (GPULoadStoreSpec(np.asarray(gpu_blocks)), CPULoadStoreSpec(np.asarray(cpu_blocks)))
            self._submit(req_id, spec, is_store=True)

    def get_finished(self, finished_req_ids):
        finished_sending, finished_recving = set(), set()
        for job_id, success in self.worker.get_finished():
            req_id, is_store = self._jobs.pop(job_id)
            jobs = self._req_jobs[req_id]
            jobs.discard(job_id)
            if jobs:
                continue
            if is_store:
                del self._req_jobs[req_id]
                if req_id in self._finished_reqs_waiting_for_store:
                    self._finished_reqs_waiting_for_store.remove(req_id)
                    finished_sending.add(req_id)
            else:
                finished_recving.add(req_id)
        for req_id in finished_req_ids:
            if self._req_jobs.get(req_id):
                self._finished_reqs_waiting_for_store.add(req_id)
            else:
                finished_sending.add(req_id)
        return finished_sending, finished_recving
