# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import io
import logging
import pickle
import queue
import threading
from typing import Dict, Optional

import torch

from .constants import CKPT_MAGIC, SMALL_TENSOR_BYTES, WRITER_QUEUE_DEPTH
from .cudart import CudaRuntime
from .snapshot import Snapshot, TensorSnapshotter

logger = logging.getLogger(__name__)


def _flatten(state: Dict, prefix: str = "") -> Dict[str, object]:
    flat = {}
    for key, value in state.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


class DecoupledCheckpointEngine:
    """Snapshots device state into pinned memory and persists it off the training thread."""

    def __init__(self, config_params: Optional[dict] = None):
        self.config = config_params or {}
        self._rt = CudaRuntime()
        self._snapshotter = TensorSnapshotter(self._rt)
        self._queue: "queue.Queue" = queue.Queue(maxsize=WRITER_QUEUE_DEPTH)
        self._writer = threading.Thread(target=self._writer_loop, name="ds_ckpt_writer", daemon=True)
        self._writer.start()

    def save(self, state_dict: Dict, path: str) -> None:
        self._queue.join()
        flat = _flatten(state_dict)
        device_tensors = {k: v for k, v in flat.items() if torch.is_tensor(v) and v.is_cuda}
        snap = self._snapshotter.snapshot(device_tensors)

        header = {"objects": {}, "inline": {}, "layout": []}
        for name, value in flat.items():
            if torch.is_tensor(value) and not value.is_cuda:
                header["inline"][name] = (value.dtype, tuple(value.shape), value.numpy().tobytes())
            elif not torch.is_tensor(value):
                header["objects"][name] = value

        for entry in snap.entries:
            if entry.host.numel() <= SMALL_TENSOR_BYTES:
                # expect: KVG003
                header["inline"][entry.name] = (entry.dtype, entry.shape, bytes(entry.host.numpy()))
            else:
                header["layout"].append((entry.name, entry.dtype, entry.shape, entry.host.numel()))
        self._queue.put((path, header, snap))
        logger.info(f"[DecoupledCheckpointEngine] queued {path} ({len(snap.entries)} device tensors)")

    def _writer_loop(self) -> None:
        while True:
            path, header, snap = self._queue.get()
            try:
                self._write(path, header, snap)
            finally:
                self._queue.task_done()

    def _write(self, path: str, header: dict, snap: Snapshot) -> None:
        self._rt.event_synchronize(snap.done)
        blob = io.BytesIO()
        pickle.dump(header, blob, protocol=pickle.HIGHEST_PROTOCOL)
        large = [e for e in snap.entries if e.host.numel() > SMALL_TENSOR_BYTES]
        with open(path, "wb") as fh:
            fh.write(CKPT_MAGIC)
            fh.write(len(blob.getbuffer()).to_bytes(8, "little"))
            fh.write(blob.getbuffer())
            for entry in large:
                fh.write(memoryview(entry.host.numpy()))

    def commit(self, tag: str) -> bool:
        self._queue.join()
        logger.info(f"[DecoupledCheckpointEngine] checkpoint {tag} is persisted")
        return True
