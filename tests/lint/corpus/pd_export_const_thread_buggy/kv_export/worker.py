import queue
from collections import deque
from typing import Dict, Set

import numpy as np
import torch

from kv_export.copy_thread import ExportCopyThread, ExportJob


class KVExportWorker:
    def __init__(self, num_host_blocks: int):
        self.num_host_blocks = num_host_blocks
        self._in_flight = deque()

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        gpu = [t.view(t.shape[0], -1) for t in kv_caches.values()]
        self.host_caches = [torch.empty((self.num_host_blocks, t.shape[1]), dtype=t.dtype,
                                        pin_memory=True) for t in gpu]
        self.copy_thread = ExportCopyThread(
            gpu[0].device,
            np.array([t.data_ptr() for t in gpu], dtype=np.uint64),
            np.array([t.data_ptr() for t in self.host_caches], dtype=np.uint64),
            np.array([t.stride(0) * t.element_size() for t in gpu], dtype=np.uint64),
        )
        self.copy_thread.start()

    def wait_for_save(self, metadata) -> None:
        """End of the step's forward: stage the blocks of every request whose prefill is done."""
        if not metadata.exports:
            return
        req_ids, gpu_blocks, host_blocks = [], [], []
        for req_id, (gpu, host) in metadata.exports.items():
            req_ids.append(req_id)
            gpu_blocks.extend(gpu)
            host_blocks.extend(host)
        self.copy_thread.jobs.put(ExportJob(req_ids, gpu_blocks, host_blocks))

    def get_finished(self) -> Set[str]:
        while True:
            try:
                self._in_flight.append(self.copy_thread.staged.get_nowait())
            except queue.Empty:
                break
        done: Set[str] = set()
        while self._in_flight and self._in_flight[0][1].query():
            done.update(self._in_flight.popleft()[0])
        return done
