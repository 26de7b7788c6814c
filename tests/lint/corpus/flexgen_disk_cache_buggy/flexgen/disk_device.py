import logging
import os
import queue
import threading
from typing import List, Optional

import torch

from . import cudart
from .copy_worker import copy_worker_func

logger = logging.getLogger(__name__)


class TorchDisk:
    """Manage tensors stored on a disk."""

    def __init__(self, path: str, num_copy_threads: int = 4, cuda_id: int = 0):
        self.name = path
        self.path = os.path.abspath(os.path.expanduser(path))
        os.makedirs(self.path, exist_ok=True)
        self.cuda_id = cuda_id
        self.copy_queue: Optional[queue.Queue] = queue.Queue()
        self.copy_threads: List[threading.Thread] = [
            threading.Thread(target=copy_worker_func, args=(self.copy_queue, cuda_id), daemon=True)
            for _ in range(num_copy_threads)
        ]
        for t in self.copy_threads:
            t.start()

    def cache_file(self, layer_id: int, batch_id: int, kind: str) -> str:
        return os.path.join(self.path, f"cache_l{layer_id}_b{batch_id}_{kind}.npy")

    def submit_store(self, filename: str, src: torch.Tensor, byte_offset: Optional[int] = None) -> None:
        """Schedules `src` to be written into `filename` once the work queued so far on the current stream is done."""
        ready = cudart.event_create()
        cudart.event_record(ready, torch.cuda.current_stream(src.device).cuda_stream)
        self.copy_queue.put_nowait((filename, byte_offset, src, ready))

    def store_cache(self, layer_id: int, batch_id: int, k_new: torch.Tensor, v_new: torch.Tensor,
                    token_pos: Optional[int], header_bytes: int = 128) -> None:
        for kind, tensor in (("k", k_new), ("v", v_new)):
            filename = self.cache_file(layer_id, batch_id, kind)
            if token_pos is None:
                self.submit_store(filename, tensor.contiguous())
            else:
                row_bytes = tensor[0].numel() * tensor.element_size()
                self.submit_store(filename, tensor.contiguous(), header_bytes + token_pos * row_bytes)

    def synchronize(self) -> None:
        self.copy_queue.join()

    def close_copy_threads(self) -> None:
        for _ in range(len(self.copy_threads)):
            self.copy_queue.put_nowait(None)
        for t in self.copy_threads:
            t.join()
        self.copy_queue.join()
        self.copy_queue = None

    def __del__(self):
        if self.copy_queue:
            self.close_copy_threads()
