import queue
from collections import deque

import torch

from kv_prefix_offload.copy_thread import start_copy_thread


class PrefixOffloadWorker:
    def __init__(self, gpu_cache: torch.Tensor, num_cpu_blocks: int):
        self.gpu_cache = gpu_cache
        self.cpu_cache = torch.zeros((2, num_cpu_blocks, *gpu_cache.shape[2:]),
                                     dtype=gpu_cache.dtype, pin_memory=True)
        self.load_stream = torch.cuda.Stream()
        self.store_stream = torch.cuda.Stream()
        self._jobs, self._completed = start_copy_thread(gpu_cache, self.cpu_cache)
        # Loads wait for the work queued before the forward (kernels of the previous step
        # may still read the blocks they overwrite); stores for the forward itself, which
        # writes the blocks they read. Reused across steps: the copy queue is FIFO.
        self._load_event = torch.cuda.Event()
        self._save_event = torch.cuda.Event()
        self._issued: deque[dict] = deque()
        self.checksums: dict[int, int] = {}
        self._meta = None

    def bind_connector_metadata(self, meta) -> None:
        self._meta = meta

    def clear_connector_metadata(self) -> None:
        self._meta = None

    def start_load_kv(self) -> None:
        if self._meta.load_cpu_blocks:
            self._load_event.record()
            self._jobs.put({"kind": "load", "src": self._meta.load_cpu_blocks,
                            "dst": self._meta.load_gpu_blocks, "stream": self.load_stream,
                            "after": self._load_event, "done": torch.cuda.Event(),
                            "reqs": self._meta.load_req_ids})

    def wait_for_save(self) -> None:
        if self._meta.store_gpu_blocks:
            self._save_event.record()  # the forward of this step has been queued
            self._jobs.put({"kind": "store", "src": self._meta.store_gpu_blocks,
                            "dst": self._meta.store_cpu_blocks, "stream": self.store_stream,
                            "after": self._save_event, "done": torch.cuda.Event(),
                            "reqs": self._meta.store_req_ids})

    def get_finished(self) -> tuple[set[str], set[str]]:
        sent: set[str] = set()
        received: set[str] = set()
        while True:
            try:
                self._issued.append(self._completed.get_nowait())
            except queue.Empty:
                break
        # a job on the completed queue has been issued; its copies land when `done` fires
        while self._issued and self._issued[0]["done"].query():
            job = self._issued.popleft()
            if job["kind"] == "store":
                for c in job["dst"]:
                    self.checksums[c] = int(self.cpu_cache[:, c].view(torch.int32).sum())
                sent.update(job["reqs"])
            else:
                received.update(job["reqs"])
        return sent, received
