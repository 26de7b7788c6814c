from __future__ import annotations

import logging
import queue
import threading
from dataclasses import dataclass

import torch

from simple_kv_offload.constants import CU_MEMCPY_SRC_ACCESS_ORDER_ANY
from simple_kv_offload.cuda_mem_ops import BatchMemcpyParams, build_params, copy_blocks

logger = logging.getLogger(__name__)


@dataclass
class DmaCopyEvent:
    event_idx: int
    end_event: torch.Event
    num_bytes: int
    is_store: bool


class DmaCopyBackend:
    """Issues batch copies from a background thread so the step loop never blocks."""

    def __init__(self) -> None:
        self._store_params: BatchMemcpyParams | None = None
        self._load_params: BatchMemcpyParams | None = None
        self._queue: queue.SimpleQueue | None = None
        self._thread: threading.Thread | None = None

    def init(self, gpu_caches: dict[str, torch.Tensor], cpu_caches: dict[str, torch.Tensor],
             device: torch.device, load_stream: torch.cuda.Stream,
             store_stream: torch.cuda.Stream) -> None:
        self._store_params = build_params(gpu_caches, cpu_caches, store_stream)
        self._load_params = build_params(cpu_caches, gpu_caches, load_stream,
                                         src_access_order=CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
        self._queue = queue.SimpleQueue()
        self._thread = threading.Thread(
            target=self._copy_loop,
            args=(self._queue, device, load_stream, store_stream),
            name="dma-copy",
            daemon=True,
        )
        self._thread.start()

    def launch_copy(self, src_blocks: list[int], dst_blocks: list[int], is_store: bool,
                    event_idx: int, events_list: list[DmaCopyEvent],
                    wait_event: torch.Event | None = None) -> None:
        params = self._store_params if is_store else self._load_params
        assert params is not None and self._queue is not None
        self._queue.put((src_blocks, dst_blocks, params, is_store, event_idx,
                         events_list, wait_event))

    def shutdown(self) -> None:
        if self._queue is not None:
            self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    @staticmethod
    def _copy_loop(q: queue.SimpleQueue, device: torch.device,
                   load_stream: torch.cuda.Stream, store_stream: torch.cuda.Stream) -> None:
        torch.cuda.set_device(device)
        while True:
            item = q.get()
            if item is None:
                return
            src_blocks, dst_blocks, params, is_store, event_idx, events_list, wait_event = item
            stream = store_stream if is_store else load_stream
            if wait_event is not None:
                stream.wait_event(wait_event)
            num_bytes = copy_blocks(src_blocks, dst_blocks, params)
            end_event = torch.Event()
            end_event.record(stream)
            events_list.append(DmaCopyEvent(event_idx, end_event, num_bytes, is_store))
