"""The scheduler's overlap loop: launch batch N+1, then post-process batch N."""

from collections import deque

from overlap_sched.tp_worker_overlap_thread import TpModelWorkerClient


class Scheduler:
    def __init__(self, server_args, model):
        self.server_args = server_args
        self.tp_worker = TpModelWorkerClient(server_args, model)
        self.result_queue = deque()

    def run_batch(self, batch, reqs):
        _, future_next_token_ids = self.tp_worker.forward_batch_generation(batch)
        self.result_queue.append((batch, reqs))
        return future_next_token_ids

    def process_batch_result_decode(self):
        batch, reqs = self.result_queue.popleft()
        logits_output, next_token_ids = self.tp_worker.resolve_batch_result(batch.bid)
        for i, (req, token_id) in enumerate(zip(reqs, next_token_ids)):
            req.output_ids.append(token_id)
            if req.return_logprob and logits_output.next_token_logprobs is not None:
                req.output_token_logprobs.append(logits_output.next_token_logprobs[i])
        return reqs

    def event_loop_overlap(self, batches):
        finished = []
        for batch, reqs in batches:
            self.run_batch(batch, reqs)
            if len(self.result_queue) > 1:
                finished.extend(self.process_batch_result_decode())
        while self.result_queue:
            finished.extend(self.process_batch_result_decode())
        self.tp_worker.shutdown()
        return finished
