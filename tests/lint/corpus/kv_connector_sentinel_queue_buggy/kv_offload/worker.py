"""Worker half of a CPU KV offload connector (vLLM KVConnectorBase_V1 shape)."""

import torch

from kv_offload.transfer import TransferJob, TransferThread


class CPUOffloadConnectorWorker:
    def __init__(self, vllm_config, num_cpu_blocks):
        self.vllm_config = vllm_config
        self.num_cpu_blocks = num_cpu_blocks
        self.transfer = None
        self._meta = None
        self._sending = set()
        self._recving = set()

    def register_kv_caches(self, kv_caches):
        gpu_caches = list(kv_caches.values())
        cpu_caches = [
            torch.empty((self.num_cpu_blocks, *t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in gpu_caches
        ]
        self.transfer = TransferThread(gpu_caches, cpu_caches, gpu_caches[0].device)

    def bind_connector_metadata(self, meta):
        self._meta = meta

    def start_load_kv(self, forward_context, **kwargs):
        # Loads land in blocks the scheduler just re-assigned; kernels of the previous step
        # on the compute stream may still read them.
        for req_id, (cpu_blocks, gpu_blocks) in self._meta.loads.items():
            ready = torch.cuda.Event()
            self.transfer.submit(TransferJob("load", req_id, cpu_blocks, gpu_blocks, ready))
            self._recving.add(req_id)

    def wait_for_save(self):
        # Called after the forward pass has written this step's KV blocks.
        for req_id, (gpu_blocks, cpu_blocks) in self._meta.stores.items():
            ready = torch.cuda.Event()
            self.transfer.submit(TransferJob("store", req_id, gpu_blocks, cpu_blocks, ready))
            ready.record()
            self._sending.add(req_id)

    def get_finished(self, finished_req_ids):
        done_send, done_recv = set(), set()
        for job in self.transfer.poll_done():
            (done_send if job.tag == "store" else done_recv).add(job.req_id)
        self._sending -= done_send
        self._recving -= done_recv
        return done_send or None, done_recv or None
