"""A model worker client that overlaps scheduling with the forward pass: batches go to a forward
thread through an input queue, results come back through an output queue."""

import logging
import threading
from queue import Queue

import torch

from overlap_sched.server_args import FUTURE_LIMIT_FACTOR
from overlap_sched.tp_worker import TpModelWorker
from overlap_sched.utils import logprobs_to_python, resolve_future_token_ids

logger = logging.getLogger(__name__)


class TpModelWorkerClient:
    def __init__(self, server_args, model):
        self.worker = TpModelWorker(server_args, model)
        self.device = self.worker.device
        self.future_token_ids_ct = 0
        self.future_token_ids_limit = server_args.max_running_requests * FUTURE_LIMIT_FACTOR
        self.future_token_ids_map = torch.empty(
            (server_args.future_map_size,), dtype=torch.int64, device=self.device
        )
        self.launch_done = None

        self.input_queue = Queue()
        self.output_queue = Queue()
        self.forward_stream = torch.cuda.Stream()
        self.forward_thread = threading.Thread(target=self.forward_thread_func, daemon=True)
        self.forward_thread.start()

    def forward_thread_func(self):
        try:
            with torch.cuda.stream(self.forward_stream):
                self.forward_thread_func_()
        except Exception:
            logger.exception("forward thread died")
            raise

    @torch.no_grad()
    def forward_thread_func_(self):
        # keep the last two batches alive: their tensors are still read by queued kernels
        batch_lists = [None] * 2
        batch_pt = 0
        while True:
            model_worker_batch, future_token_ids_ct = self.input_queue.get()
            if model_worker_batch is None:
                break
            batch_lists[batch_pt % 2] = model_worker_batch
            batch_pt += 1

            self.launch_done = threading.Event()
            copy_done = torch.cuda.Event()

            resolve_future_token_ids(model_worker_batch.input_ids, self.future_token_ids_map)
            logits_output, next_token_ids = self.worker.forward_batch_generation(
                model_worker_batch, self.launch_done
            )

            bs = model_worker_batch.batch_size
            self.future_token_ids_map[future_token_ids_ct + 1 : future_token_ids_ct + bs + 1] = next_token_ids

            # copy results to the host; the scheduler waits on copy_done before reading them
            if model_worker_batch.return_logprob:
                logits_output.next_token_logprobs = logits_output.next_token_logprobs.to(
                    "cpu", non_blocking=True
                )
            next_token_ids = next_token_ids.to("cpu", non_blocking=True)
            copy_done.record()

            self.output_queue.put((copy_done, logits_output, next_token_ids))

    def resolve_batch_result(self, bid):
        copy_done, logits_output, next_token_ids = self.output_queue.get()
        copy_done.synchronize()
        self.launch_done.wait()
        logits_output = logprobs_to_python(logits_output)
        next_token_ids = next_token_ids.tolist()
        return logits_output, next_token_ids

    def forward_batch_generation(self, model_worker_batch):
        # the scheduler stream filled the batch's inputs; let them land before the forward thread reads
        torch.cuda.current_stream().synchronize()
        self.input_queue.put((model_worker_batch, self.future_token_ids_ct))

        bs = model_worker_batch.batch_size
        future_next_token_ids = torch.arange(
            -(self.future_token_ids_ct + 1),
            -(self.future_token_ids_ct + 1 + bs),
            -1,
            dtype=torch.int64,
            device=self.device,
        )
        self.future_token_ids_ct = (self.future_token_ids_ct + bs) % self.future_token_ids_limit
        return None, future_next_token_ids

    def shutdown(self):
        self.input_queue.put((None, None))
        self.forward_thread.join()
