"""The overlap event loop: while the forward thread runs batch N, the scheduler prepares batch
N+1 and then processes the result of batch N. Finished requests are inserted and backed up to
the host only once resolve_last_batch_result has returned: it waited on copy_done, which the
forward thread records on the forward stream after the batch's kernels, so the pages hold
their KV before the write stream reads them. (Prefill-only requests, max_new_tokens of 1, go
the same way: an earlier backup would rest on launch_done, which says the kernels are queued,
not done.)"""

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
        next_token_ids = self.tp_worker.resolve_last_batch_result(batch.launch_done)
        for req, token_id in zip(batch.reqs, next_token_ids):
            req.output_ids.append(token_id)
            if len(req.output_ids) >= req.max_new_tokens:
                self.cache_finished_req(req)
        self.cache_controller.start_writing()

    def cache_finished_req(self, req):
        self.node_counter += 1
        req.host_pages = self.cache_controller.write(req.device_pages, self.node_counter)
