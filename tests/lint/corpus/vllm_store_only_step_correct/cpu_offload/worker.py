"""Worker side: pinned CPU mirror of the KV cache. Both directions are launched from
get_finished, after the forward pass has been queued. Loads overwrite GPU blocks taken from
finished requests whose kernels may still be queued, and stores read blocks the forward pass
just wrote: both wait on an event recorded on the compute stream."""

from typing import Dict, List, Optional, Set, Tuple

import torch

from cpu_offload import cuda_ops
from cpu_offload.copy_backend import CopyBackend, TransferJob
from cpu_offload.scheduler import CPUOffloadMetadata


class CPUOffloadWorker:
    def __init__(self, num_cpu_blocks: int):
        self.num_cpu_blocks = num_cpu_blocks
        self._meta: Optional[CPUOffloadMetadata] = None
        self._compute_done = torch.cuda.Event()
        self._load_done: List[Tuple[int, torch.cuda.Event]] = []
        self._store_done: List[Tuple[int, torch.cuda.Event]] = []
        self._event_reqs: Dict[int, List[str]] = {}

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        self.gpu_caches = dict(kv_caches)
        self.device = next(iter(kv_caches.values())).device
        self.cpu_caches = {
            name: torch.zeros((self.num_cpu_blocks,) + tuple(t.shape[1:]), dtype=t.dtype,
                              device="cpu", pin_memory=True)
            for name, t in kv_caches.items()
        }
        low, _ = torch.cuda.Stream.priority_range()
        self.load_stream = torch.cuda.Stream(device=self.device, priority=low)
        self.store_stream = torch.cuda.Stream(device=self.device, priority=low)
        self._store_params = cuda_ops.build_params(self.gpu_caches, self.cpu_caches,
                                                   self.store_stream, cuda_ops.STORE_ORDER)
        self._load_params = cuda_ops.build_params(self.cpu_caches, self.gpu_caches,
                                                  self.load_stream, cuda_ops.LOAD_ORDER)
        self._backend = CopyBackend(self.device, self.load_stream, self.store_stream)

    def bind_connector_metadata(self, meta: CPUOffloadMetadata) -> None:
        self._meta = meta
        self._event_reqs.update(meta.event_to_reqs)

    def clear_connector_metadata(self) -> None:
        self._meta = None

    def get_finished(self, finished_req_ids: Set[str]) -> Tuple[Optional[Set[str]], Optional[Set[str]]]:
        meta = self._meta
        if meta is not None:
            if meta.load_cpu_blocks or meta.store_gpu_blocks:
                self._compute_done.record(torch.cuda.current_stream())
            if meta.load_cpu_blocks:
                self._backend.submit(TransferJob(
                    meta.load_cpu_blocks, meta.load_gpu_blocks, self._load_params, False,
                    meta.load_event, self._load_done, wait_event=self._compute_done))
            if meta.store_gpu_blocks:
                self._backend.submit(TransferJob(
                    meta.store_gpu_blocks, meta.store_cpu_blocks, self._store_params, True,
                    meta.store_event, self._store_done, wait_event=self._compute_done))
        return self._drain(self._store_done) or None, self._drain(self._load_done) or None

    def _drain(self, done: List[Tuple[int, torch.cuda.Event]]) -> Set[str]:
        reqs: Set[str] = set()
        while done and done[0][1].query():  # in stream order: stop at the first pending one
            idx, _ = done.pop(0)
            reqs.update(self._event_reqs.pop(idx, []))
        return reqs
