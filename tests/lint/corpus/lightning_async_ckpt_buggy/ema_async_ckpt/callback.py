"""EMA weights with asynchronous, non-blocking checkpointing."""
from __future__ import annotations

import os
from typing import Any

import torch
from lightning.pytorch import LightningModule, Trainer
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.utilities import rank_zero_info

from .staging import PinnedStager
from .payload import StagedCheckpoint
from .writer import CheckpointWriterThread


class EMAAsyncCheckpoint(Callback):
    def __init__(self, dirpath: str, every_n_train_steps: int = 1000, decay: float = 0.999) -> None:
        super().__init__()
        self.dirpath = dirpath
        self.every_n_train_steps = every_n_train_steps
        self.decay = decay
        self.last_saved_step = -1
        self._ema: dict[str, torch.Tensor] = {}
        self._stager: PinnedStager | None = None
        self._writer: CheckpointWriterThread | None = None

    def setup(self, trainer: Trainer, pl_module: LightningModule, stage: str) -> None:
        if stage != "fit" or not trainer.is_global_zero:
            return
        os.makedirs(self.dirpath, exist_ok=True)
        self._stager = PinnedStager(pl_module.device)
        self._writer = CheckpointWriterThread()
        self._writer.start()

    def on_train_start(self, trainer: Trainer, pl_module: LightningModule) -> None:
        self._ema = {
            name: p.detach().clone() for name, p in pl_module.named_parameters() if p.requires_grad
        }

    @torch.no_grad()
    def on_train_batch_end(
        self, trainer: Trainer, pl_module: LightningModule, outputs: Any, batch: Any, batch_idx: int
    ) -> None:
        params = dict(pl_module.named_parameters())
        for name, ema in self._ema.items():
            ema.lerp_(params[name].detach(), 1.0 - self.decay)

        step = trainer.global_step
        if self._writer is not None and step > 0 and step % self.every_n_train_steps == 0:
            self._save_async(step)

    def _save_async(self, step: int) -> None:
        # the pinned staging buffers are reused, so the previous write must be finished
        self._writer.wait_until_idle()
        tensors = self._stager.stage(self._ema)
        # the next EMA update must not overwrite the sources while they are being copied
        torch.cuda.current_stream().wait_stream(self._stager.stream)
        path = os.path.join(self.dirpath, f"ema-step={step:08d}.ckpt")
        self._writer.submit(StagedCheckpoint(step=step, path=path, tensors=tensors))
        self.last_saved_step = step
        rank_zero_info(f"queued EMA checkpoint for step {step} ({self._stager.staged_bytes / 2**20:.1f} MiB)")

    def on_train_end(self, trainer: Trainer, pl_module: LightningModule) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def state_dict(self) -> dict[str, Any]:
        return {"decay": self.decay, "last_saved_step": self.last_saved_step}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.decay = state_dict["decay"]
        self.last_saved_step = state_dict["last_saved_step"]
