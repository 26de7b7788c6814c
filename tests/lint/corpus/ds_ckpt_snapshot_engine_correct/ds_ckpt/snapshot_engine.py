# SPDX-License-Identifier: Apache-2.0
"""Asynchronous checkpointing: snapshot to pinned host memory, persist on a writer thread."""

import queue
import threading

import torch
from deepspeed.accelerator import get_accelerator
from deepspeed.utils import logger

from .base import CheckpointEngine


def iter_tensors(state, prefix=""):
    if isinstance(state, torch.Tensor):
        yield prefix, state
    elif isinstance(state, dict):
        for key, value in state.items():
            yield from iter_tensors(value, f"{prefix}/{key}" if prefix else str(key))
    elif isinstance(state, (list, tuple)):
        for idx, value in enumerate(state):
            yield from iter_tensors(value, f"{prefix}/{idx}")


def rebuild(state, replacements, prefix=""):
    """Same structure as ``state`` with tensors looked up in ``replacements`` by key."""
    if isinstance(state, torch.Tensor):
        return replacements.get(prefix, state)
    if isinstance(state, dict):
        return {k: rebuild(v, replacements, f"{prefix}/{k}" if prefix else str(k)) for k, v in state.items()}
    if isinstance(state, (list, tuple)):
        return type(state)(rebuild(v, replacements, f"{prefix}/{i}") for i, v in enumerate(state))
    return state


class SnapshotCheckpointEngine(CheckpointEngine):

    def __init__(self, config_params=None):
        super().__init__(config_params)
        self.accelerator = get_accelerator()
        self.snapshot_stream = self.accelerator.Stream()
        self._host_buffers = {}
        self._pending = queue.Queue()
        self._writer = threading.Thread(target=self._write_loop, name="ckpt-writer", daemon=True)
        self._writer.start()

    def _host_buffer(self, key, like):
        buf = self._host_buffers.get(key)
        if buf is None or buf.shape != like.shape or buf.dtype != like.dtype:
            buf = self.accelerator.pin_memory(torch.empty(like.shape, dtype=like.dtype, device="cpu"))
            self._host_buffers[key] = buf
        return buf

    def create(self, tag):
        # the host buffers are reused across checkpoints: the previous one must be on disk
        self.wait()
        logger.info(f"[Snapshot] Checkpoint {tag} is about to be saved!")

    def save(self, state_dict, path: str):
        copies = {}
        # the state was last written by the optimizer step on the compute stream
        self.snapshot_stream.wait_stream(self.accelerator.current_stream())
        with self.accelerator.stream(self.snapshot_stream):
            for key, tensor in iter_tensors(state_dict):
                if tensor.device.type == "cpu":
                    continue
                host = self._host_buffer(key, tensor)
                host.copy_(tensor.detach(), non_blocking=True)
                copies[key] = host
        done = self.accelerator.Event()
        done.record(self.snapshot_stream)
        # the next optimizer step updates these tensors in place: not before they are copied
        self.accelerator.current_stream().wait_event(done)
        self._pending.put(("save", path, rebuild(state_dict, copies), done))

    def _write_loop(self):
        while True:
            item = self._pending.get()
            if item is None:
                self._pending.task_done()
                break
            kind, path, payload, done = item
            try:
                if kind == "save":
                    done.synchronize()
                    torch.save(payload, path)
                else:
                    # every save of the tag was queued before its commit
                    with open(path, "w") as fd:
                        fd.write(payload)
                    logger.info(f"[Snapshot] Checkpoint {payload} is ready now!")
            finally:
                self._pending.task_done()

    def load(self, path: str, map_location=None):
        self.wait()
        return torch.load(path, map_location=map_location, weights_only=False)

    def commit(self, tag, latest_path=None):
        if latest_path is not None:
            self._pending.put(("commit", latest_path, tag, None))
        return True

    def wait(self):
        self._pending.join()

    def shutdown(self):
        self._pending.put(None)
        self._writer.join()
