"""Overlap event loop: step N+1 is launched before step N's sampled tokens are consumed."""

from collections import deque

import torch

from sgl_overlap.async_d2h import AsyncD2HCopyWorker
from sgl_overlap.batch_result import GenerationBatchResult, HostTokenBuffers


class Scheduler:
    def __init__(self, model_runner, batch_scheduler, max_running_requests: int, gpu_id: int):
        self.device = torch.device(f"cuda:{gpu_id}")
        self.model_runner = model_runner
        self.batch_scheduler = batch_scheduler
        self.forward_stream = torch.cuda.Stream(device=self.device)
        self.d2h_worker = AsyncD2HCopyWorker(self.device)
        # two host mirrors: step N+1 fills one while step N's is consumed
        self.host_buffers = [HostTokenBuffers.allocate(max_running_requests) for _ in range(2)]
        self.result_queue = deque()
        self.forward_ct = 0

    def run_batch(self, batch) -> GenerationBatchResult:
        with torch.cuda.stream(self.forward_stream):
            logits_output = self.model_runner.forward(batch)
            logits = logits_output.next_token_logits
            next_token_ids = torch.argmax(logits, dim=-1)
            logprobs = torch.log_softmax(logits.float(), dim=-1)
            token_logprobs = logprobs.gather(1, next_token_ids.unsqueeze(1)).squeeze(1)
            result = GenerationBatchResult(next_token_ids, token_logprobs, len(batch.reqs))
            result.copy_to_cpu(self.d2h_worker, self.host_buffers[self.forward_ct % 2])
        self.forward_ct += 1
        return result

    def process_batch_result(self, batch, result: GenerationBatchResult) -> None:
        result.copy_done.synchronize()
        n = result.batch_size
        # expect: KVG003
        next_token_ids = result.host.next_token_ids[:n].tolist()
        # expect: KVG003
        logprobs = result.host.next_token_logprobs[:n].tolist()
        for req, token_id, logprob in zip(batch.reqs, next_token_ids, logprobs):
            req.output_ids.append(token_id)
            req.output_token_logprobs.append(logprob)
            req.check_finished()
        self.batch_scheduler.release_finished(batch)

    def event_loop_overlap(self) -> None:
        while True:
            batch = self.batch_scheduler.get_next_batch_to_run()
            if batch is None:
                if self.result_queue:
                    self.process_batch_result(*self.result_queue.popleft())
                    continue
                break
            result = self.run_batch(batch)
            self.result_queue.append((batch, result))
            if len(self.result_queue) > 1:
                self.process_batch_result(*self.result_queue.popleft())
        self.d2h_worker.shutdown()
