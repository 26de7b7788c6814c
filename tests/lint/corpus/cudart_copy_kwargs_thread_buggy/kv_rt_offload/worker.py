import queue
from collections import deque
from typing import Any, Optional

import numpy as np
import torch

from kv_rt_offload.copy_thread import CopyRequest, CopyThread
from kv_rt_offload.cudart_copy import ORDER_ANY

# Overridable from kv_connector_extra_config["copy_kwargs"].
DEFAULT_COPY_KWARGS: dict[str, Any] = {
    # every copy waits on the compute-done event first, so the engine may start reading
    # the source as soon as the batch is submitted
    "src_access_order": ORDER_ANY,
    "prefer_overlap_with_compute": True,
}


class RuntimeOffloadWorker:
    def __init__(self, num_cpu_blocks: int, extra_config: Optional[dict[str, Any]] = None):
        self.num_cpu_blocks = num_cpu_blocks
        self.copy_kwargs = {**DEFAULT_COPY_KWARGS, **(extra_config or {}).get("copy_kwargs", {})}
        self._pending: deque[CopyRequest] = deque()

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]) -> None:
        gpu = [t.view(t.shape[0], -1) for t in kv_caches.values()]
        cpu = [torch.empty((self.num_cpu_blocks, t.shape[1]), dtype=t.dtype, pin_memory=True)
               for t in gpu]
        self.gpu_bases = np.array([t.data_ptr() for t in gpu], dtype=np.uint64)
        self.cpu_bases = np.array([t.data_ptr() for t in cpu], dtype=np.uint64)
        self.block_bytes = np.array([t.stride(0) * t.element_size() for t in gpu], dtype=np.uint64)
        self.store_stream = torch.cuda.Stream()
        self.load_stream = torch.cuda.Stream()
        self._thread = CopyThread(gpu[0].device)
        self._thread.start()
        self._gpu, self._cpu = gpu, cpu

    def _pointers(self, src_bases, dst_bases, src_ids, dst_ids):
        s = np.asarray(src_ids, dtype=np.uint64)[None, :]
        d = np.asarray(dst_ids, dtype=np.uint64)[None, :]
        bpb = self.block_bytes[:, None]
        srcs = (src_bases[:, None] + s * bpb).ravel().tolist()
        dsts = (dst_bases[:, None] + d * bpb).ravel().tolist()
        return dsts, srcs, np.repeat(self.block_bytes, s.shape[1]).tolist()

    def _submit(self, job_id: int, is_store: bool, src_ids: list[int], dst_ids: list[int]) -> None:
        if is_store:
            dsts, srcs, sizes = self._pointers(self.gpu_bases, self.cpu_bases, src_ids, dst_ids)
            stream = self.store_stream
        else:
            dsts, srcs, sizes = self._pointers(self.cpu_bases, self.gpu_bases, src_ids, dst_ids)
            stream = self.load_stream
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        req = CopyRequest(job_id, dsts, srcs, sizes, stream, ready, torch.cuda.Event(),
                          self.copy_kwargs)
        self._thread.requests.put(req)

    def submit_store(self, job_id: int, gpu_blocks: list[int], cpu_blocks: list[int]) -> None:
        self._submit(job_id, True, gpu_blocks, cpu_blocks)

    def submit_load(self, job_id: int, cpu_blocks: list[int], gpu_blocks: list[int]) -> None:
        self._submit(job_id, False, cpu_blocks, gpu_blocks)

    def get_finished(self) -> list[int]:
        while True:
            try:
                self._pending.append(self._thread.issued.get_nowait())
            except queue.Empty:
                break
        finished = []
        while self._pending and self._pending[0].done.query():
            finished.append(self._pending.popleft().job_id)
        return finished
