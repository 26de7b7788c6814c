from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

import cupy as cp
import cupyx
import numpy as np

from .encoder import EncodedBatch


@dataclass
class ExportConfig:
    out_dir: str
    dim: int = 768
    max_batch: int = 256
    shard_rows: int = 65536
    meta: dict = field(default_factory=dict)


class ShardExporter:
    """Accumulates embeddings in host memory and flushes fixed-size .npy shards."""

    def __init__(self, cfg: ExportConfig) -> None:
        self.cfg = cfg
        os.makedirs(cfg.out_dir, exist_ok=True)
        self._staging = cupyx.empty_pinned((cfg.max_batch, cfg.dim), dtype=np.float16)
        self._copy_stream = cp.cuda.Stream(non_blocking=True)
        self._rows: list[np.ndarray] = []
        self._ids: list[str] = []
        self._n_rows = 0
        self._shard = 0

    def add(self, batch: EncodedBatch) -> None:
        n = batch.emb.shape[0]
        if n > self.cfg.max_batch:
            raise ValueError(f"batch of {n} exceeds max_batch={self.cfg.max_batch}")
        host = self._staging[:n]
        # expect: KVG001
        batch.emb.get(stream=self._copy_stream, out=host)
        self._copy_stream.synchronize()
        self._rows.append(host.copy())
        self._ids.extend(batch.doc_ids)
        self._n_rows += n
        if self._n_rows >= self.cfg.shard_rows:
            self.flush()

    def flush(self) -> None:
        if not self._rows:
            return
        name = f"shard-{self._shard:05d}"
        np.save(os.path.join(self.cfg.out_dir, name + ".npy"), np.concatenate(self._rows))
        with open(os.path.join(self.cfg.out_dir, name + ".json"), "w") as f:
            json.dump({"ids": self._ids, **self.cfg.meta}, f)
        self._rows.clear()
        self._ids.clear()
        self._n_rows = 0
        self._shard += 1
