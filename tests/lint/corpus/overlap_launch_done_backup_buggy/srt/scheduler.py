"""The overlap event loop: while the forward thread runs batch N, the scheduler prepares batch
N+1 and then processes the result of batch N. Requests that only prefill (max_new_tokens of 1,
e.g. scoring or prompt-cache warm-up) are known to finish before their token comes back, so
their pages are inserted and backed up to the host as soon as their prefill is launched, to
overlap the backup with the token copy.

Bug: "launched" is not "done". launch_done only says the prefill's kernels are queued on the
forward thread's stream; the backup's start event is recorded on this thread's stream, which
the forward stream's work is not ordered before, so the write stream copies pages the prefill
is still writing."""

from collections import deque

from srt.cache_controller import HiCacheController
from srt.memory_pool_host import HostKVPool
from srt.tp_worker_overlap_thread import TpModelWorkerClient


class Scheduler:
    def __init__(self, worker, device_pool, host_pages: int):
        self.tp_worker = TpModelWorkerClient(worker)
        self.cache_controller = HiCacheController(HostKVPool(device_pool, host_pages))
        self.result_queue = deque()
        self.waiting = deque()
        self.node_counter = 0

    def event_loop_overlap(self):
        while True:
            batch = self.get_next_batch_to_run()
            if batch is not None:
                self.tp_worker.forward_batch_generation(batch)
                self.result_queue.append(batch)
            if self.result_queue and (batch is None or len(self.result_queue) > 1):
                self.process_batch_result(self.result_queue.popleft())
            self.cache_controller.poll_acks()

    def get_next_batch_to_run(self):
        return self.waiting.popleft() if self.waiting else None

    def process_batch_result(self, batch):
        batch.launch_done.wait()
        for req in batch.reqs:
            if req.max_new_tokens == 1:
                self.cache_finished_req(req)
        self.cache_controller.start_writing()

        next_token_ids = self.tp_worker.resolve_last_batch_result(batch.launch_done)
        for req, token_id in zip(batch.reqs, next_token_ids):
            req.output_ids.append(token_id)
            if req.max_new_tokens != 1 and len(req.output_ids) >= req.max_new_tokens:
                self.cache_finished_req(req)
        self.cache_controller.start_writing()

    def cache_finished_req(self, req):
        self.node_counter += 1
        req.host_pages = self.cache_controller.write(req.device_pages, self.node_counter)
