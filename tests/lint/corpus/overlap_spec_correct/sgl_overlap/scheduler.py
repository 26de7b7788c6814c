from __future__ import annotations

import logging
from collections import deque
from typing import Optional

from sgl_overlap.scheduler_output import SchedulerOutputProcessorMixin
from sgl_overlap.tp_worker_overlap import TpModelWorkerClient

logger = logging.getLogger(__name__)


class Scheduler(SchedulerOutputProcessorMixin):
    def __init__(self, model_worker, tree_cache, batch_builder, stream_output):
        self.tp_worker = TpModelWorkerClient(model_worker)
        self.tree_cache = tree_cache
        self.batch_builder = batch_builder
        self.stream_output = stream_output
        self.result_queue: deque = deque()
        self.last_batch: Optional[object] = None

    def event_loop_overlap(self):
        while True:
            batch = self.batch_builder.get_next_batch_to_run(self.last_batch)
            if batch is not None:
                batch.output_ids = self.tp_worker.forward_batch_generation(batch)
                self.result_queue.append(batch)
            if self.last_batch is not None and self.result_queue:
                tmp_batch = self.result_queue.popleft()
                host, _ = self.tp_worker.resolve_last_batch_result()
                self.process_batch_result_decode(tmp_batch, host)
            elif batch is None:
                self.batch_builder.wait_for_requests()
            self.last_batch = batch
