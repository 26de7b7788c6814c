# SPDX-License-Identifier: Apache-2.0
"""Worker half of the CPU swap connector.

Transfers are issued from get_finished(), which runs right after the model
forward has been enqueued; the copy thread may pick a job up while that
forward is still executing on the compute stream. Block ids handed out by
the scheduler can belong to requests released during that same step.
"""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

import torch

from .constants import OP_LOAD, OP_STORE
from .layout import BlockLayout
from .transfer_thread import TransferThread

logger = logging.getLogger(__name__)


@dataclass
class SwapMetadata:
    # req_id -> (gpu block ids, cpu block ids)
    stores: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)
    # req_id -> (cpu block ids, gpu block ids)
    loads: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)


class CPUOffloadConnectorWorker:

    def __init__(self, kv_caches: dict[str, torch.Tensor],
                 num_cpu_blocks: int):
        gpu_caches = list(kv_caches.values())
        cpu_caches = [
            torch.empty((num_cpu_blocks, *t.shape[1:]),
                        dtype=t.dtype,
                        pin_memory=True) for t in gpu_caches
        ]
        device = gpu_caches[0].device
        self._thread = TransferThread(device, BlockLayout(gpu_caches, cpu_caches))
        self._thread.start()
        self._lock = threading.Lock()
        self._inflight: dict[tuple[str, str], torch.cuda.Event] = {}
        self._metadata: SwapMetadata | None = None

    def bind_connector_metadata(self, metadata: SwapMetadata) -> None:
        self._metadata = metadata

    def _on_done(self, op: str):

        def callback(req_id: str, event: torch.cuda.Event) -> None:
            with self._lock:
                self._inflight[(op, req_id)] = event

        return callback

    def get_finished(self) -> tuple[set[str], set[str]]:
        md = self._metadata
        if md is not None and (md.stores or md.loads):
            compute_done = torch.cuda.Event()
            compute_done.record(torch.cuda.current_stream())
            for req_id, (gpu_blocks, cpu_blocks) in md.stores.items():
                self._thread.submit({
                    "op": OP_STORE, "job_id": req_id,
                    "src_blocks": gpu_blocks, "dst_blocks": cpu_blocks,
                    "after": compute_done, "on_done": self._on_done(OP_STORE),
                })
            for req_id, (cpu_blocks, gpu_blocks) in md.loads.items():
                self._thread.submit({
                    "op": OP_LOAD, "job_id": req_id,
                    "src_blocks": cpu_blocks, "dst_blocks": gpu_blocks,
                    "on_done": self._on_done(OP_LOAD),
                })
        sending, recving = set(), set()
        with self._lock:
            for (op, req_id), event in list(self._inflight.items()):
                if event.query():
                    del self._inflight[(op, req_id)]
                    (sending if op == OP_STORE else recving).add(req_id)
        return sending, recving

    def shutdown(self) -> None:
        self._thread.stop()
