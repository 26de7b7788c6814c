"""Event loop that overlaps CPU scheduling of batch N+1 with the GPU forward of batch N."""
from typing import List, Optional

import torch

from .batch_copy import copy_inputs_to_device
from .tp_worker_overlap_thread import TpModelWorkerClient


class OverlapScheduler:
    def __init__(self, worker: TpModelWorkerClient):
        self.tp_worker = worker
        self.device = worker.device
        self.last_batch = None

    def prepare(self, batch) -> None:
        host_ids = torch.tensor([r.last_input_id for r in batch.reqs], dtype=torch.int64)
        (batch.input_ids,) = copy_inputs_to_device([host_ids], self.device, torch.cuda.current_stream(self.device))

    def run_batch(self, batch) -> None:
        self.prepare(batch)
        future_ids = self.tp_worker.forward_batch_generation(batch)
        for req, fid in zip(batch.reqs, future_ids.tolist()):
            req.last_input_id = fid

    def process_batch_result(self, batch) -> List[int]:
        out, copy_done = self.tp_worker.output_queue.get()
        if batch.return_logprob:
            # expect: KVG003
            batch.output_logprobs = out.logprobs[: out.num_reqs].tolist()
        copy_done.synchronize()
        next_ids = out.token_ids[: out.num_reqs].tolist()
        for req, tok in zip(batch.reqs, next_ids):
            req.output_ids.append(tok)
        return next_ids

    def event_loop_overlap(self, get_next_batch) -> None:
        while True:
            batch: Optional[object] = get_next_batch()
            if batch is not None:
                self.run_batch(batch)
            if self.last_batch is not None:
                self.process_batch_result(self.last_batch)
            self.last_batch = batch
