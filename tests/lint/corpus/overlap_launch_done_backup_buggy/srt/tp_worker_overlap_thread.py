"""A tensor-parallel worker client in the shape of SGLang's overlap scheduler: the scheduler
thread puts batches on an input queue, a forward thread runs them on its own forward stream
and puts back (copy_done, next_token_ids) once the sampled ids' copy to the host is queued."""

import threading
from queue import Queue
from typing import Optional

import torch


class TpModelWorkerClient:
    def __init__(self, worker):
        self.worker = worker
        self.device = worker.device
        self.forward_stream = torch.cuda.Stream(device=self.device)
        self.input_queue: Queue = Queue()
        self.output_queue: Queue = Queue()
        self.forward_thread = threading.Thread(target=self.forward_thread_func, daemon=True)
        self.forward_thread.start()

    def forward_thread_func(self):
        torch.cuda.set_device(self.device)
        with torch.cuda.stream(self.forward_stream):
            self.forward_thread_func_()

    @torch.no_grad()
    def forward_thread_func_(self):
        while True:
            model_worker_batch = self.input_queue.get()
            if model_worker_batch is None:
                break
            next_token_ids = self.worker.forward_batch_generation(model_worker_batch)
            # the kernels of this batch are queued on the forward stream
            model_worker_batch.launch_done.set()
            next_token_ids = next_token_ids.to("cpu", non_blocking=True)
            copy_done = torch.cuda.Event()
            copy_done.record()
            self.output_queue.put((copy_done, next_token_ids))

    def forward_batch_generation(self, model_worker_batch) -> None:
        model_worker_batch.launch_done = threading.Event()
        self.input_queue.put(model_worker_batch)

    def resolve_last_batch_result(self, launch_done: Optional[threading.Event] = None):
        copy_done, next_token_ids = self.output_queue.get()
        if launch_done is not None:
            launch_done.wait()
        copy_done.synchronize()
        return next_token_ids.tolist()
