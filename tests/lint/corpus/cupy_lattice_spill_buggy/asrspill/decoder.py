"""Streaming acoustic scorer: each chunk of features becomes a [frames, vocab] lattice
slab on the GPU, which is spilled to disk while the next chunks are scored."""
from typing import Dict, Optional

import cupy
import numpy as np

from .config import SpillConfig
from .kernels import acoustic_scores, log_softmax_
from .spiller import LatticeSpiller, SpillJob


class ChunkDecoder:
    def __init__(self, proj: np.ndarray, cfg: Optional[SpillConfig] = None,
                 temperature: float = 1.0):
        self.cfg = cfg or SpillConfig()
        self.temperature = temperature
        self.compute = cupy.cuda.Stream(non_blocking=True)
        with self.compute:
            self.proj = cupy.asarray(proj, dtype=cupy.float32)
            self.lattice = cupy.empty((self.cfg.ring, self.cfg.chunk_frames, self.cfg.vocab),
                                      dtype=cupy.float32)
        self._inflight: Dict[int, object] = {}
        self._spiller: Optional[LatticeSpiller] = None
        self._chunks = 0

    def begin(self, utt_id: str) -> None:
        self._spiller = LatticeSpiller(self.cfg, utt_id)
        self._chunks = 0

    def push(self, feats: np.ndarray) -> None:
        slot = self._chunks % self.cfg.ring
        prev = self._inflight.pop(slot, None)
        if prev is not None:
            prev.result()        # the slot's previous chunk has reached the file
        slab = self.lattice[slot]
        with self.compute:
            d_feats = cupy.asarray(feats, dtype=cupy.float32)
            acoustic_scores(d_feats, self.proj, slab, self.temperature)
            ready = self.compute.record()
            if self.cfg.normalize:
                log_softmax_(slab)
        job = SpillJob(self._chunks, slab, ready)
        self._inflight[slot] = self._spiller.submit(job)
        self._chunks += 1

    def end(self) -> int:
        for fut in self._inflight.values():
            fut.result()
        self._inflight.clear()
        self._spiller.close()
        return self._chunks
