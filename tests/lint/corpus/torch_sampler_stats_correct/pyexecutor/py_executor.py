import threading
import time
from dataclasses import dataclass
from typing import Optional

from tensorrt_llm.logger import logger

from .config import PyTorchConfig
from .iter_stats import IterStatsCollector
from .sampler import SampleState, TorchSampler


@dataclass
class BatchState:
    sample_state: SampleState
    iter_start_time: float
    iter_id: int


class PyExecutor:
    def __init__(self, scheduler, model_engine, sampler: TorchSampler, config: PyTorchConfig):
        self.scheduler = scheduler
        self.model_engine = model_engine
        self.sampler = sampler
        self.enable_iter_perf_stats = config.enable_iter_perf_stats
        self.stats_collector = IterStatsCollector(config.max_stats_len)
        self.is_shutdown = False
        self.worker_thread = threading.Thread(
            target=self._executor_loop_overlap, name="pyexecutor", daemon=True
        )

    def start_worker(self) -> None:
        self.worker_thread.start()

    def _executor_loop_overlap(self) -> None:
        iter_id = 0
        previous_batch: Optional[BatchState] = None
        while not self.is_shutdown:
            iter_start_time = time.perf_counter()
            scheduled_batch = self.scheduler.schedule_request()
            if scheduled_batch is None:
                break
            new_tokens_device = (
                previous_batch.sample_state.device if previous_batch is not None else None
            )
            batch_outputs = self.model_engine.forward(scheduled_batch, new_tokens_device)
            sample_state = self.sampler.sample_async(scheduled_batch, batch_outputs)
            if previous_batch is not None:
                self._process_previous_batch(previous_batch)
            previous_batch = BatchState(sample_state, iter_start_time, iter_id)
            iter_id += 1
        if previous_batch is not None:
            self._process_previous_batch(previous_batch)

    def _process_previous_batch(self, previous_batch: BatchState) -> None:
        state = previous_batch.sample_state
        self.sampler.update_requests(state)
        if self.enable_iter_perf_stats:
            latency_ms = (time.perf_counter() - previous_batch.iter_start_time) * 1e3
            self.stats_collector.record(
                previous_batch.iter_id, state.scheduled_requests, state, latency_ms
            )
        self._handle_responses(state.scheduled_requests)

    def _handle_responses(self, scheduled_requests) -> None:
        for req in scheduled_requests.all_requests():
            if req.is_finished:
                self.scheduler.finish_request(req)
                logger.debug(f"request {req.py_request_id} finished")

    def shutdown(self) -> None:
        self.is_shutdown = True
        self.worker_thread.join()
