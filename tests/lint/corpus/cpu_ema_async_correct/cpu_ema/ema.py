from __future__ import annotations

import queue
import threading
from typing import Dict, Optional

import torch
from torch import nn

from .config import EMAConfig
from .snapshot import PinnedSnapshot
from .worker import EMAJob, EMAWorker


class CPUEMAModel:
    """Exponential moving average of a model's weights kept in host memory.

    Every ``update_every`` steps the device weights are snapshotted into pinned
    memory and a background thread does the averaging, off the training loop.
    """

    def __init__(self, model: nn.Module, config: EMAConfig = EMAConfig()):
        self.config = config
        self._names = [n for n, p in model.named_parameters() if p.requires_grad]
        params = dict(model.named_parameters())
        self.shadow: Dict[str, torch.Tensor] = {
            n: params[n].detach().float().cpu() for n in self._names
        }
        self.snapshot = PinnedSnapshot([params[n] for n in self._names])
        self._idle = threading.Event()
        self._idle.set()
        self._jobs: "queue.Queue[Optional[EMAJob]]" = queue.Queue(maxsize=1)
        self._worker = EMAWorker(self._jobs, self._names, self.snapshot, self.shadow, self._idle)
        self._worker.start()
        self.skipped_updates = 0

    @torch.no_grad()
    def maybe_update(self, model: nn.Module, step: int) -> bool:
        """Call right after ``optimizer.step()``."""
        cfg = self.config
        if step < cfg.start_step or step % cfg.update_every != 0:
            return False
        if not self._idle.is_set():
            # previous update still averaging; the snapshot buffers are busy
            self.skipped_updates += 1
            return False
        self._idle.clear()
        params = dict(model.named_parameters())
        # Snapshot on the stream the optimizer just ran on; only the host-side
        # averaging is moved off the training loop.
        ready = self.snapshot.capture(
            [params[n] for n in self._names], torch.cuda.current_stream()
        )
        self._jobs.put(EMAJob(step=step, decay=cfg.decay_at(step), ready=ready))
        return True

    def state_dict(self) -> Dict[str, torch.Tensor]:
        self._idle.wait()
        return {n: t.clone() for n, t in self.shadow.items()}

    def close(self) -> None:
        self._idle.wait()
        self._jobs.put(None)
        self._worker.join()
