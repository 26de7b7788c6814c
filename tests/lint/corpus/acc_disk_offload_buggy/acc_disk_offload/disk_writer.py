"""Background persistence of offloaded tensors as numpy memmaps (one .dat per tensor)."""
import json
import os
import queue
import threading
from dataclasses import dataclass

import numpy as np
import torch

from .offload_config import INDEX_FILE, OFFLOAD_FOLDER, WRITER_JOIN_TIMEOUT_S, WRITER_QUEUE_DEPTH

_STOP = object()
_NP_DTYPES = {
    torch.float16: np.float16,
    torch.float32: np.float32,
    torch.int32: np.int32,
    torch.int64: np.int64,
}


@dataclass
class WritePayload:
    name: str
    host: torch.Tensor
    ready: torch.cuda.Event


class MemmapWriter(threading.Thread):
    def __init__(self, folder: str = OFFLOAD_FOLDER):
        super().__init__(name="memmap-writer", daemon=True)
        self.folder = folder
        self.index: dict[str, dict] = {}
        self._queue: "queue.Queue[object]" = queue.Queue(maxsize=WRITER_QUEUE_DEPTH)
        os.makedirs(folder, exist_ok=True)

    def submit(self, payload: WritePayload) -> None:
        self._queue.put(payload)

    def run(self) -> None:
        while True:
            item = self._queue.get()
            try:
                if item is _STOP:
                    return
                self._write(item)
            finally:
                self._queue.task_done()

    def _write(self, payload: WritePayload) -> None:
        host = payload.host
        if host.dtype not in _NP_DTYPES:
            raise TypeError(f"cannot memmap {payload.name} with dtype {host.dtype}")
        shape = tuple(host.shape) or (1,)
        path = os.path.join(self.folder, f"{payload.name}.dat")
        file_array = np.memmap(path, dtype=_NP_DTYPES[host.dtype], mode="w+", shape=shape)
        # expect: KVG003
        file_array[:] = host.numpy().reshape(shape)
        file_array.flush()
        self.index[payload.name] = {"dtype": str(host.dtype).replace("torch.", ""), "shape": list(shape)}

    def close(self) -> None:
        self._queue.put(_STOP)
        self.join(timeout=WRITER_JOIN_TIMEOUT_S)
        with open(os.path.join(self.folder, INDEX_FILE), "w", encoding="utf-8") as f:
            json.dump(self.index, f, indent=2)
