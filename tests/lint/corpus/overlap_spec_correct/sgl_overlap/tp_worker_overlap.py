from __future__ import annotations

import logging
import threading
from queue import Queue
from typing import Tuple

import torch

from sgl_overlap.constants import DEFAULT_MAX_RUNNING_REQUESTS, FUTURE_MAP_SIZE_MULTIPLIER
from sgl_overlap.copy_utils import HostCopyResult, copy_results_to_host

logger = logging.getLogger(__name__)


class FutureMap:
    """Placeholder ids for tokens that the worker thread has not produced yet."""

    def __init__(self, max_running_requests: int, device: torch.device):
        self.device = device
        self.future_ct = 0
        self.future_limit = max_running_requests * FUTURE_MAP_SIZE_MULTIPLIER
        self.future_buffer_len = self.future_limit + 2 * max_running_requests
        self.token_ids_buf = torch.empty(
            (self.future_buffer_len,), dtype=torch.int64, device=device
        )

    def alloc_future_indices(self, bs: int) -> torch.Tensor:
        cur = self.future_ct
        self.future_ct = (cur + bs) % self.future_limit
        start = cur + 1
        return torch.arange(start, start + bs, dtype=torch.int64, device=self.device)

    def resolve_future(self, input_ids: torch.Tensor) -> None:
        input_ids[:] = torch.where(
            input_ids < 0,
            self.token_ids_buf[torch.clamp(-input_ids, min=0)],
            input_ids,
        )

    def store_to_map(self, future_indices: torch.Tensor, next_token_ids: torch.Tensor) -> None:
        self.token_ids_buf[future_indices] = next_token_ids


class TpModelWorkerClient:
    """A tensor parallel model worker driven from a separate thread."""

    def __init__(self, worker, max_running_requests: int = DEFAULT_MAX_RUNNING_REQUESTS):
        self.worker = worker
        self.device = worker.device
        self.future_map = FutureMap(max_running_requests, self.device)
        self.input_queue: Queue = Queue()
        self.output_queue: Queue = Queue()
        self.scheduler_stream = torch.cuda.current_stream()
        self.forward_stream = torch.cuda.Stream()
        self.copy_stream = torch.cuda.Stream()
        self.forward_thread = threading.Thread(target=self.forward_thread_func, daemon=True)
        self.forward_thread.start()

    def forward_thread_func(self):
        try:
            with torch.cuda.device(self.device):
                self.forward_thread_func_()
        except Exception:
            logger.exception("TpModelWorkerClient hit an exception")
            raise

    @torch.no_grad()
    def forward_thread_func_(self):
        while True:
            item = self.input_queue.get()
            if item is None:
                return
            batch, future_indices, launch_done = item
            with torch.cuda.stream(self.forward_stream):
                self.forward_stream.wait_event(launch_done)
                self.future_map.resolve_future(batch.input_ids)
                result = self.worker.forward_batch_generation(batch)
                self.future_map.store_to_map(future_indices, result.next_token_ids)
                host = copy_results_to_host(
                    result.next_token_ids,
                    result.accept_lens,
                    self.copy_stream,
                    producer_stream=torch.cuda.current_stream(),
                )
            self.output_queue.put((host, result))

    def forward_batch_generation(self, batch) -> torch.Tensor:
        launch_done = torch.cuda.Event()
        launch_done.record(self.scheduler_stream)
        future_indices = self.future_map.alloc_future_indices(len(batch.reqs))
        self.input_queue.put((batch, future_indices, launch_done))
        return -future_indices

    def resolve_last_batch_result(self) -> Tuple[HostCopyResult, object]:
        return self.output_queue.get()

    def shutdown(self):
        self.input_queue.put(None)
        self.forward_thread.join()
