from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass
from typing import Dict, Optional, Sequence

import numpy as np
import torch

from .snapshot import PinnedSnapshot

logger = logging.getLogger(__name__)


@dataclass
class EMAJob:
    step: int
    decay: float


class EMAWorker(threading.Thread):
    """Folds each captured snapshot into the fp32 host shadow weights."""

    def __init__(
        self,
        jobs: "queue.Queue[Optional[EMAJob]]",
        names: Sequence[str],
        snapshot: PinnedSnapshot,
        shadow: Dict[str, torch.Tensor],
        idle: threading.Event,
    ):
        super().__init__(name="cpu-ema-worker", daemon=True)
        self._jobs = jobs
        self._names = list(names)
        self._snapshot = snapshot
        self._shadow = shadow
        self._idle = idle
        self.last_step = -1

    def run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                break
            try:
                self._apply(job)
            except Exception:  # keep training alive, EMA is best-effort
                logger.exception("EMA update for step %d failed", job.step)
            finally:
                self._idle.set()

    def _apply(self, job: EMAJob) -> None:
        for name, buf in zip(self._names, self._snapshot.buffers):
            current = buf.numpy()
            shadow = self._shadow[name].numpy()
            shadow *= job.decay
            # expect: KVG003
            shadow += (1.0 - job.decay) * current
        if not np.isfinite(self._shadow[self._names[0]].numpy()).all():
            logger.warning("non-finite EMA weights at step %d", job.step)
        self.last_step = job.step
