# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Checkpoint engine that drains flat parameter shards to disk off the training thread."""

import logging
import os
from typing import List

import torch
from deepspeed import comm as dist

from .constants import SHARD_FILE_TEMPLATE
from .staging import StagingArea
from .writer import ShardWriter

logger = logging.getLogger(__name__)


class DecoupledCheckpointEngine:

    def __init__(self, save_dir: str, max_shard_numel: int) -> None:
        self.save_dir = save_dir
        self.staging = StagingArea(max_shard_numel)
        self.writer = ShardWriter(self.staging)
        self.rank = dist.get_rank()

    @torch.no_grad()
    def save(self, tag: str, flat_shards: List[torch.Tensor]) -> None:
        compute = torch.cuda.current_stream()
        self.staging.stream.wait_stream(compute)
        for idx, shard in enumerate(flat_shards):
            host = self.staging.acquire(shard.numel())
            ready = torch.cuda.Event()
            with torch.cuda.stream(self.staging.stream):
                host.copy_(shard, non_blocking=True)
                ready.record(self.staging.stream)
            shard.record_stream(self.staging.stream)
            path = os.path.join(self.save_dir, SHARD_FILE_TEMPLATE.format(tag=tag, rank=self.rank, idx=idx))
            self.writer.submit(host, ready, path)
        logger.info("rank %d queued %d shards for tag %s", self.rank, len(flat_shards), tag)

    def commit(self, tag: str) -> bool:
        self.writer.wait_all()
        dist.barrier()
        return True
