"""Worker side of the host tier: pinned host mirrors of each KV layer, and one save job per
step carrying the event that marks the end of the step's forward pass."""

import queue
from collections import deque
from typing import Deque, Dict, List, Set, Tuple

import torch

from host_tier.save_thread import SaveJob, SaveThread


class HostTierWorker:
    def __init__(self, num_host_slots: int, max_coalesce: int):
        self.num_host_slots = num_host_slots
        self.max_coalesce = max_coalesce
        self.in_flight: Deque[Tuple[List[str], torch.cuda.Event]] = deque()

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]) -> None:
        self.layers = list(kv_caches.values())
        self.host_layers = [
            torch.empty((self.num_host_slots,) + tuple(t.shape[1:]), dtype=t.dtype, pin_memory=True)
            for t in self.layers
        ]
        self.block_bytes = [t[0].numel() * t.element_size() for t in self.layers]
        self.saver = SaveThread(self.layers[0].device, self.max_coalesce)

    def wait_for_save(self, meta) -> None:
        if not meta.saves:
            return
        srcs, dsts, sizes, req_ids = [], [], [], []
        for req_id, (gpu_blocks, slots) in meta.saves.items():
            req_ids.append(req_id)
            for gpu, host, nbytes in zip(self.layers, self.host_layers, self.block_bytes):
                for b, s in zip(gpu_blocks, slots):
                    srcs.append(gpu.data_ptr() + b * nbytes)
                    dsts.append(host.data_ptr() + s * nbytes)
                    sizes.append(nbytes)
        ready = torch.cuda.Event()
        ready.record(torch.cuda.current_stream())
        self.saver.submit(SaveJob(meta.step, req_ids, srcs, dsts, sizes, ready))

    def get_finished(self) -> Set[str]:
        while True:
            try:
                self.in_flight.append(self.saver.completed.get_nowait())
            except queue.Empty:
                break
        finished: Set[str] = set()
        while self.in_flight and self.in_flight[0][1].query():
            finished.update(self.in_flight.popleft()[0])
        return finished
