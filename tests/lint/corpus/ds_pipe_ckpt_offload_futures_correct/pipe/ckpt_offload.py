# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""CPU checkpointing for pipeline stages: with activation checkpointing a stage only keeps
its input between the forward and the backward of a micro-batch (the backward recomputes
from it), and that input is parked in pinned host memory meanwhile.

Pinning host memory is slow and serialises with other allocations, so the offload runs on
a single worker thread: the engine submits the stage input and gets a future of the host
copy back; the backward resolves the future and reloads the input on the reload stream.

The engine records an event on its compute stream when it parks an input; the worker
makes the offload stream wait on it, so the copy reads the input only once the receive
that wrote it has completed."""

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

    def _offload_job(self, activation, ready):
        host = get_accelerator().pin_memory(torch.empty(activation.shape, dtype=activation.dtype, device="cpu"))
        with get_accelerator().stream(self.offload_stream):
            self.offload_stream.wait_event(ready)
            host.copy_(activation, non_blocking=True)
            done = get_accelerator().Event()
            done.record()
        activation.record_stream(self.offload_stream)
        return host, done

    def park_checkpoint(self, buffer_id, activation):
        ready = get_accelerator().Event()
        ready.record()
        self._parked[buffer_id] = self._offload_pool.submit(self._offload_job, activation.detach(), ready)

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
