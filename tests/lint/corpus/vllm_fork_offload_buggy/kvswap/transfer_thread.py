# SPDX-License-Identifier: Apache-2.0
from __future__ import annotations

import logging
import queue
import threading
from typing import Any

import torch

from .constants import OP_LOAD, OP_STORE
from .cudart_batch import attrs_for, batch_memcpy_async
from .layout import BlockLayout

logger = logging.getLogger(__name__)


class TransferThread(threading.Thread):
    """Issues queued swap jobs on the per-direction DMA streams."""

    def __init__(self, device: torch.device, layout: BlockLayout):
        super().__init__(name="kvswap-dma", daemon=True)
        self._device = device
        self._layout = layout
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._streams = {
            OP_STORE: torch.cuda.Stream(device=device),
            OP_LOAD: torch.cuda.Stream(device=device),
        }
        self._attrs = {
            op: attrs_for(op, device.index)
            for op in (OP_STORE, OP_LOAD)
        }

    def submit(self, payload: dict[str, Any]) -> None:
        self._queue.put(payload)

    def stop(self) -> None:
        self._queue.put(None)
        self.join(timeout=5.0)

    def run(self) -> None:
        torch.cuda.set_device(self._device)
        while True:
            payload = self._queue.get()
            if payload is None:
                return
            op = payload["op"]
            stream = self._streams[op]
            after = payload.get("after")
            if after is not None:
                stream.wait_event(after)
            dsts, srcs, sizes = self._layout.addresses(
                op, payload["src_blocks"], payload["dst_blocks"])
            batch_memcpy_async(dsts, srcs, sizes, self._attrs[op],
                               stream.cuda_stream)
            done = torch.cuda.Event()
            done.record(stream)
            payload["on_done"](payload["job_id"], done)
