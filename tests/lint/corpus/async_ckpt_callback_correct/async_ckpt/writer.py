# coding=utf-8
# Copyright 2025 The HuggingFace Team. All rights reserved.
# Licensed under the Apache License, Version 2.0
import logging
import os
import queue
import threading

import torch

from .config import AsyncCheckpointConfig
from .snapshot import PinnedStateSnapshot

logger = logging.getLogger(__name__)

_STOP = object()


class AsyncCheckpointWriter(threading.Thread):
    """Background thread that serializes captured snapshots to disk."""

    def __init__(self, config: AsyncCheckpointConfig):
        super().__init__(name="async-checkpoint-writer", daemon=True)
        self.config = config
        self._queue: "queue.Queue" = queue.Queue()
        os.makedirs(config.output_dir, exist_ok=True)

    def submit(self, snapshot: PinnedStateSnapshot, copies_done: torch.Event) -> None:
        snapshot.written.clear()
        self._queue.put((snapshot, copies_done))

    def run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                break
            snapshot, copies_done = item
            copies_done.synchronize()
            path = os.path.join(self.config.output_dir, self.config.weights_name_template.format(step=snapshot.step))
            torch.save(snapshot.tensors, path)
            logger.info("Saved async checkpoint for step %d to %s", snapshot.step, path)
            snapshot.written.set()

    def close(self) -> None:
        self._queue.put(_STOP)
        self.join()
