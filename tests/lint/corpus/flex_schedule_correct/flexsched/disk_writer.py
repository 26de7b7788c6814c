import os
import queue
import threading
from typing import Optional, Tuple

import torch


class DiskCacheWriter:
    """Background thread spilling host KV blocks of disk-resident layers."""

    def __init__(self, offload_dir: str):
        self.offload_dir = os.path.expanduser(offload_dir)
        os.makedirs(self.offload_dir, exist_ok=True)
        self._q: "queue.Queue[Optional[Tuple[int, torch.Tensor]]]" = queue.Queue()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()

    def submit(self, layer_idx: int, host_cache: torch.Tensor) -> None:
        self._q.put((layer_idx, host_cache))

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                break
            layer_idx, host_cache = item
            with open(os.path.join(self.offload_dir, f"kv_{layer_idx}.bin"), "wb") as f:
                f.write(host_cache.numpy().tobytes())
            self._q.task_done()

    def drain(self) -> None:
        self._q.join()

    def close(self) -> None:
        self._q.put(None)
        self._t.join()
