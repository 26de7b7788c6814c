# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Background thread that issues the batched DMA copies."""

from __future__ import annotations

import logging
import queue
import threading

import torch

from .cuda_mem_ops import BatchMemcpyParams, build_params, copy_blocks, cudaMemcpySrcAccessOrderAny

logger = logging.getLogger(__name__)


class DmaCopyBackend:
    def __init__(self) -> None:
        self._store_params: BatchMemcpyParams | None = None
        self._load_params: BatchMemcpyParams | None = None
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def init(
        self,
        gpu_caches: list[torch.Tensor],
        cpu_caches: list[torch.Tensor],
        device: torch.device,
        load_stream: torch.cuda.Stream,
        store_stream: torch.cuda.Stream,
    ) -> None:
        self._store_params = build_params(gpu_caches, cpu_caches, store_stream)
        self._load_params = build_params(
            cpu_caches, gpu_caches, load_stream, src_access_order=cudaMemcpySrcAccessOrderAny
        )
        self._thread = threading.Thread(
            target=self._copy_loop,
            args=(self._queue, device, load_stream, store_stream),
            name="kv-offload-dma",
            daemon=True,
        )
        self._thread.start()

    def launch_copy(
        self,
        src_blocks: list[int],
        dst_blocks: list[int],
        is_store: bool,
        job_id: int,
        done: list[tuple[int, torch.cuda.Event]],
        wait_event: torch.cuda.Event,
    ) -> None:
        params = self._store_params if is_store else self._load_params
        assert params is not None, "init() must run before launch_copy()"
        self._queue.put((src_blocks, dst_blocks, params, is_store, job_id, done, wait_event))

    def shutdown(self) -> None:
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout=5.0)

    @staticmethod
    def _copy_loop(
        q: queue.SimpleQueue,
        device: torch.device,
        load_stream: torch.cuda.Stream,
        store_stream: torch.cuda.Stream,
    ) -> None:
        torch.cuda.set_device(device)
        while True:
            item = q.get()
            if item is None:
                return
            src_blocks, dst_blocks, params, is_store, job_id, done, wait_event = item
            stream = store_stream if is_store else load_stream
            stream.wait_event(wait_event)
            try:
                copy_blocks(src_blocks, dst_blocks, params)
            except RuntimeError:
                logger.exception("DMA job %d failed", job_id)
                continue
            event = torch.cuda.Event()
            event.record(stream)
            done.append((job_id, event))
