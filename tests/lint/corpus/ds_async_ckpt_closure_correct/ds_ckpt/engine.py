# SPDX-License-Identifier: Apache-2.0
"""A decoupled checkpoint engine: ``save`` stages the state on a side stream and returns at once;
a background worker writes the staged bytes to storage while training continues; ``commit`` waits
for the writes of a tag."""

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils.logging import logger

from .file_writer import TensorFileWriter
from .staging import PinnedStagingArena


@dataclass
class CheckpointIOConfig:
    staging_bytes: int = 1 << 30
    fsync: bool = False
    io_workers: int = 1


@dataclass
class StagedState:
    entries: list
    copied: torch.cuda.Event


class AsyncCheckpointEngine:
    def __init__(self, config: CheckpointIOConfig):
        self.config = config
        self.arena = PinnedStagingArena(config.staging_bytes)
        self.ckpt_stream = get_accelerator().Stream()
        self.executor = ThreadPoolExecutor(max_workers=config.io_workers, thread_name_prefix="ckpt-io")
        self.pending = []

    def _stage(self, state_dict) -> StagedState:
        entries = []
        # the optimizer step that produced these tensors ran on the compute stream
        self.ckpt_stream.wait_stream(get_accelerator().current_stream())
        with get_accelerator().stream(self.ckpt_stream):
            for name, tensor in state_dict.items():
                if not torch.is_tensor(tensor):
                    continue
                host = self.arena.allocate_like(tensor)
                host.copy_(tensor.detach(), non_blocking=True)
                tensor.record_stream(self.ckpt_stream)
                entries.append((name, host))
            copied = get_accelerator().Event()
            copied.record(self.ckpt_stream)
        # the next optimizer step must not update the tensors before they are staged
        get_accelerator().current_stream().wait_event(copied)
        return StagedState(entries=entries, copied=copied)

    def save(self, state_dict, path: str):
        # the arena is reused: the previous checkpoint's bytes must be on storage first
        self.wait()
        self.arena.reset()
        staged = self._stage(state_dict)
        fsync = self.config.fsync

        def persist():
            # the staging copies run on the checkpoint stream: the bytes are not there yet
            staged.copied.synchronize()
            with TensorFileWriter(path, fsync=fsync) as writer:
                writer.write_header(staged.entries)
                for name, host in staged.entries:
                    writer.write_tensor(name, host)
            return path

        self.pending.append(self.executor.submit(persist))

    def wait(self):
        for future in self.pending:
            logger.info(f"checkpoint file {future.result()} written")
        self.pending = []

    def commit(self, tag):
        self.wait()
        logger.info(f"checkpoint {tag} committed")
        return True
