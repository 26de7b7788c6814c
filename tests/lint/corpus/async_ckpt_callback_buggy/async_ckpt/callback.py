# coding=utf-8
# Copyright 2025 The HuggingFace Team. All rights reserved.
# Licensed under the Apache License, Version 2.0
from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments
from transformers.utils import logging

import torch

from .config import AsyncCheckpointConfig
from .snapshot import PinnedStateSnapshot
from .writer import AsyncCheckpointWriter

logger = logging.get_logger(__name__)


class AsyncCheckpointCallback(TrainerCallback):
    """
    Replaces the blocking weight save of the [`Trainer`] by a snapshot into pinned host memory taken on a side
    stream, serialized by a background thread.
    """

    def __init__(self, config: AsyncCheckpointConfig):
        self.config = config
        self._device = torch.accelerator.current_accelerator()
        self._stream = torch.Stream(device=self._device)
        self._snapshots = [PinnedStateSnapshot() for _ in range(config.num_snapshot_buffers)]
        self._writer = AsyncCheckpointWriter(config)
        self._writer.start()

    def _snapshot(self, model, step: int) -> None:
        snapshot = self._snapshots[step % len(self._snapshots)]
        snapshot.written.wait()
        copies_done = self._stream.record_event()
        with self._stream:
            snapshot.capture(model.state_dict(), step)
        self._writer.submit(snapshot, copies_done)
        torch.accelerator.current_stream().wait_stream(self._stream)

    def on_save(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, model=None, **kwargs):
        if model is None:
            return control
        self._stream.wait_stream(torch.accelerator.current_stream())
        self._snapshot(model, state.global_step)
        return control

    def on_train_end(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, model=None,
                     **kwargs):
        if model is not None and self.config.save_on_train_end:
            self._snapshot(model, state.global_step)
        self._writer.close()
        logger.info("Async checkpoint writer stopped after step %d", state.global_step)
