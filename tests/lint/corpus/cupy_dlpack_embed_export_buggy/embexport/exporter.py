"""Moves finished embeddings to pinned host memory with cupy and appends them to
on-disk shards from a writer thread."""
import queue
import threading
from typing import List, Optional

import cupy
import cupyx
import numpy as np
import torch

from .config import ExportConfig


class HostExporter:
    def __init__(self, out: torch.Tensor, cfg: ExportConfig):
        self.cfg = cfg
        # zero-copy view of the runner's output buffer, made once
        self._out = cupy.from_dlpack(out)
        self._d2h = cupy.cuda.Stream(non_blocking=True)
        self._pinned = cupyx.empty_pinned((cfg.max_batch, cfg.dim), dtype=np.float16)
        self._jobs: "queue.Queue[Optional[tuple]]" = queue.Queue(maxsize=1)
        self._rows = 0
        self._shard: Optional[object] = None
        cfg.shard_dir.mkdir(parents=True, exist_ok=True)
        self._writer = threading.Thread(target=self._write_loop, name="emb-writer", daemon=True)
        self._writer.start()

    def export(self, n: int, ids: List[int]) -> None:
        """Rows [0, n) of the output buffer hold the batch's embeddings."""
        # expect: KVG001
        self._out[:n].get(stream=self._d2h, out=self._pinned[:n], blocking=False)
        done = self._d2h.record()
        self._jobs.put((n, ids, done))

    def drain(self) -> None:
        """Returns once every exported batch has been read out of the output buffer."""
        self._jobs.join()

    def close(self) -> None:
        self._jobs.put(None)
        self._writer.join()
        if self._shard is not None:
            self._shard.close()

    def _write_loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                break
            n, ids, done = job
            done.synchronize()
            self._append(np.asarray(ids, dtype=np.int64), self._pinned[:n])
            self._jobs.task_done()

    def _append(self, ids: np.ndarray, rows: np.ndarray) -> None:
        if self._shard is None or self._rows >= self.cfg.rows_per_shard:
            if self._shard is not None:
                self._shard.close()
            idx = len(list(self.cfg.shard_dir.glob("*.bin")))
            self._shard = open(self.cfg.shard_dir / f"shard_{idx:05d}.bin", "ab")
            self._rows = 0
        self._shard.write(ids.tobytes())
        self._shard.write(rows.tobytes())
        self._rows += len(ids)
