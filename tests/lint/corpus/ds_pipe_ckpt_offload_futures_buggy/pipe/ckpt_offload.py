# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""CPU checkpointing for pipeline stages: with activation checkpointing a stage only keeps
its input between the forward and the backward of a micro-batch (the backward recomputes
from it), and that input is parked in pinned host memory meanwhile.

Pinning host memory is slow and serialises with other allocations, so the offload runs on
a single worker thread: the engine submits the stage input and gets a future of the host
copy back; the backward resolves the future and reloads the input on the reload stream.

Bug: the worker issues the copy on the offload stream without ordering it behind the
engine's compute stream, which is where the receive wrote the stage input. The copy can
read the buffer before the received activation has landed."""

from concurrent.futures import ThreadPoolExecutor

import torch
from deepspeed.accelerator import get_accelerator


class CheckpointOffloadMixin:
    """Mixed into the pipeline engine; needs ``self.device``."""

    def init_checkpoint_offload(self):
        self._offload_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ckpt-offload")
        self._offload_stream = get_accelerator().Stream()
        self._reload_stream = get_accelerator().Stream()
        self._parked = {}

    @property
    def offload_stream(self):
        return self._offload_stream

    @property
    def reload_stream(self):
        return self._reload_stream

    def _offload_job(self, activation):
        host = get_accelerator().pin_memory(torch.empty(activation.shape, dtype=activation.dtype, device="cpu"))
        with get_accelerator().stream(self.offload_stream):
            # expect: KVG001
            host.copy_(activation, non_blocking=True)
            done = get_accelerator().Event()
            done.record()
        activation.record_stream(self.offload_stream)
        return host, done

    def park_checkpoint(self, buffer_id, activation):
        self._parked[buffer_id] = self._offload_pool.submit(self._offload_job, activation.detach())

    def wait_checkpoint_read(self, buffer_id):
        """Before the engine overwrites a pipe buffer: its parked copy must have been read."""
        future = self._parked.get(buffer_id)
        if future is not None:
            _, done = future.result()
            get_accelerator().current_stream().wait_event(done)

    def restore_checkpoint(self, buffer_id):
        host, done = self._parked.pop(buffer_id).result()
        with get_accelerator().stream(self.reload_stream):
            self.reload_stream.wait_event(done)
            restored = host.to(self.device, non_blocking=True)
        get_accelerator().current_stream().wait_stream(self.reload_stream)
        restored.record_stream(get_accelerator().current_stream())
        return restored

    def shutdown_checkpoint_offload(self):
        self._offload_pool.shutdown(wait=True)
