"""A tensor parallel worker that overlaps the forward pass of batch N with
the scheduling of batch N+1."""

from __future__ import annotations

import dataclasses
import logging
import os
import signal
import threading
from queue import Queue
from typing import Optional

import psutil
import torch
from sglang.srt.managers.schedule_batch import ModelWorkerBatch
from sglang.srt.managers.tp_worker import TpModelWorker

from .future_map import FutureMap

logger = logging.getLogger(__name__)


class TpModelWorkerClient:
    def __init__(self, server_args, gpu_id: int, tp_rank: int, pp_rank: int,
                 dp_rank: Optional[int], nccl_port: int) -> None:
        self.worker = TpModelWorker(server_args, gpu_id, tp_rank, pp_rank, dp_rank, nccl_port)
        self.max_running_requests = self.worker.max_running_requests
        self.device = self.worker.device
        self.future_map = FutureMap(self.max_running_requests, self.device)

        self.input_queue: Queue = Queue()
        self.output_queue: Queue = Queue()
        self.forward_stream = torch.cuda.Stream()
        self.copy_stream = torch.cuda.Stream()
        self.scheduler_stream = torch.cuda.current_stream()
        self.forward_thread = threading.Thread(target=self.forward_thread_func, daemon=True)
        self.forward_thread.start()
        self.parent_process = psutil.Process().parent()

    def forward_thread_func(self) -> None:
        try:
            with torch.cuda.stream(self.forward_stream):
                self.forward_thread_func_()
        except Exception:
            logger.exception("TpModelWorkerClient hit an exception")
            self.parent_process.send_signal(signal.SIGQUIT)
            os._exit(1)

    @torch.no_grad()
    def forward_thread_func_(self) -> None:
        batch_pt = 0
        batch_lists: list[Optional[ModelWorkerBatch]] = [None] * 2
        while True:
            model_worker_batch, future_token_ids_ct, sync_event = self.input_queue.get()
            if not model_worker_batch:
                break
            sync_event.wait()
            # Keep a reference so the batch's tensors outlive the async copies.
            batch_lists[batch_pt % 2] = model_worker_batch
            batch_pt += 1

            self.future_map.resolve_future(model_worker_batch.input_ids)
            logits_output, next_token_ids, can_run_cuda_graph = (
                self.worker.forward_batch_generation(model_worker_batch,
                                                     model_worker_batch.launch_done))
            bs = len(model_worker_batch.seq_lens)
            self.future_map.store_to_map(future_token_ids_ct, bs, next_token_ids)

            # Copy results to the CPU without stalling the next forward.
            copy_done = torch.cuda.Event()
            with torch.cuda.stream(self.copy_stream):
                if model_worker_batch.return_logprob:
                    # expect: KVG001
                    logits_output.next_token_logprobs = logits_output.next_token_logprobs.to("cpu", non_blocking=True)
                # expect: KVG001
                next_token_ids = next_token_ids.to("cpu", non_blocking=True)
                copy_done.record()
            self.output_queue.put((copy_done, logits_output, next_token_ids, can_run_cuda_graph))

    def resolve_last_batch_result(self, launch_done: Optional[threading.Event] = None):
        """Called by the scheduler one iteration later to get the results."""
        copy_done, logits_output, next_token_ids, can_run_cuda_graph = self.output_queue.get()
        if launch_done is not None:
            launch_done.wait()
        if logits_output.next_token_logprobs is not None:
            copy_done.synchronize()
            logits_output.next_token_logprobs = logits_output.next_token_logprobs.tolist()
        return logits_output, next_token_ids, can_run_cuda_graph

    def forward_batch_generation(self, model_worker_batch: ModelWorkerBatch):
        sampling_info = model_worker_batch.sampling_info
        sampling_info.update_penalties()
        # A private copy: the scheduler mutates the original for the next batch.
        model_worker_batch.sampling_info = dataclasses.replace(
            sampling_info, sampling_info_done=threading.Event())

        sync_event = torch.cuda.Event()
        sync_event.record(self.scheduler_stream)
        self.input_queue.put((model_worker_batch, self.future_map.future_ct, sync_event))

        bs = len(model_worker_batch.seq_lens)
        future_next_token_ids = self.future_map.update_ct(bs)
        return None, future_next_token_ids, False

    def __delete__(self) -> None:
        self.input_queue.put((None, None, None))
