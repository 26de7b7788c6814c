# SPDX-License-Identifier: Apache-2.0
import time
from dataclasses import dataclass

from .sampler import SampleState, create_sampler


@dataclass
class BatchState:
    sample_state: SampleState
    iter_start_time: float = 0.0


class PyExecutor:

    def __init__(self, model_engine, scheduler, resource_manager, spec_config, max_num_sequences, end_id):
        self.model_engine = model_engine
        self.scheduler = scheduler
        self.resource_manager = resource_manager
        self.sampler = create_sampler(spec_config, max_num_sequences, end_id)
        self.previous_batch = None
        self.iter_stats = []

    def _process_previous_batch(self):
        state = self.previous_batch.sample_state
        self.sampler.update_requests(state)
        for req in state.scheduled_requests.all_requests():
            if req.is_finished:
                self.resource_manager.free_resources(req)
                self.scheduler.retire(req)
        self.iter_stats.append(time.perf_counter() - self.previous_batch.iter_start_time)

    def _executor_loop_overlap(self):
        while True:
            scheduled_batch = self.scheduler.schedule_request()
            if scheduled_batch is None:
                break
            start = time.perf_counter()
            self.resource_manager.prepare_resources(scheduled_batch)
            previous_tensors = self.previous_batch.sample_state.device if self.previous_batch else None
            batch_outputs = self.model_engine.forward(scheduled_batch, new_tensors_device=previous_tensors)
            sample_state = self.sampler.sample_async(scheduled_batch, batch_outputs)
            # the host work of the previous iteration overlaps this iteration's kernels
            if self.previous_batch is not None:
                self._process_previous_batch()
            self.previous_batch = BatchState(sample_state=sample_state, iter_start_time=start)
        if self.previous_batch is not None:
            self._process_previous_batch()
            self.previous_batch = None
