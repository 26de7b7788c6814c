"""A dynamic-batching engine step: the forward and the sampling run on the compute stream,
the step's outputs are copied to a pinned mirror on a metadata stream, and the host-side
bookkeeping (detokenization, finished requests) runs on an output thread so the next step's
forward can be queued at once."""

from concurrent.futures import ThreadPoolExecutor

import torch

from .detok import process_step_outputs
from .mirror import StepMirrorPool


class DynamicEngine:
    def __init__(self, model, tokenizer, max_requests, eos_id, device="cuda"):
        self.model = model
        self.tokenizer = tokenizer
        self.eos_id = eos_id
        self.device = torch.device(device)
        self.metadata_stream = torch.cuda.Stream(self.device)
        self.mirrors = StepMirrorPool(num_slots=2, max_requests=max_requests)
        self.lengths = torch.zeros(max_requests, dtype=torch.int32, device=self.device)
        self.output_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcore-detok")
        self.active_requests = []
        self.finished_requests = []
        self.step_id = 0
        self._pending = None

    def _mark_finished(self, request, length):
        request.final_length = length
        self.finished_requests.append(request)

    def step(self, input_ids, position_ids):
        n = len(self.active_requests)
        logits = self.model(input_ids, position_ids)
        new_tokens = logits[:, -1, :].argmax(dim=-1)
        finished = new_tokens.eq(self.eos_id)
        self.lengths[:n] += 1

        mirror = self.mirrors.acquire(self.step_id)
        if self._pending is not None:
            # the slot we are about to overwrite may still be read by the output thread
            self._pending.result()
        self.metadata_stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self.metadata_stream):
            mirror.new_tokens[:n].copy_(new_tokens, non_blocking=True)
            mirror.finished[:n].copy_(finished, non_blocking=True)
            mirror.lengths[:n].copy_(self.lengths[:n], non_blocking=True)
            mirror.ready.record(self.metadata_stream)
        self._pending = self.output_executor.submit(
            process_step_outputs, mirror, list(self.active_requests), self.tokenizer, self._mark_finished
        )
        self.step_id += 1
        return new_tokens.unsqueeze(-1)

    def shutdown(self):
        if self._pending is not None:
            self._pending.result()
        self.output_executor.shutdown(wait=True)
