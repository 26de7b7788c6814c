# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Background writer persisting staged shards."""

import logging
import os
from concurrent.futures import Future, ThreadPoolExecutor
from typing import List

import torch

from .constants import CHECKPOINT_WRITER_THREADS
from .staging import StagingArea

logger = logging.getLogger(__name__)


class ShardWriter:

    def __init__(self, staging: StagingArea) -> None:
        self.staging = staging
        self._executor = ThreadPoolExecutor(max_workers=CHECKPOINT_WRITER_THREADS,
                                            thread_name_prefix="ckpt_writer")
        self._pending: List[Future] = []

    def _write(self, host_shard: torch.Tensor, ready: torch.cuda.Event, path: str) -> int:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        # expect: KVG003
        torch.save(host_shard, path)
        nbytes = host_shard.numel() * host_shard.element_size()
        self.staging.release(host_shard)
        return nbytes

    def submit(self, host_shard: torch.Tensor, ready: torch.cuda.Event, path: str) -> None:
        self._pending.append(self._executor.submit(self._write, host_shard, ready, path))

    def wait_all(self) -> int:
        total = sum(f.result() for f in self._pending)
        self._pending.clear()
        logger.info("checkpoint writer flushed %.2f MB", total / 2**20)
        return total
