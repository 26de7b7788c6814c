"""Runs model forwards on a dedicated thread + stream, one batch ahead of the scheduler."""
import queue
import threading
from dataclasses import dataclass

import torch

from .batch_copy import copy_outputs_to_host
from .constants import FUTURE_MAP_SIZE


@dataclass
class HostBatchOutput:
    token_ids: torch.Tensor
    logprobs: torch.Tensor
    num_reqs: int


def resolve_future_token_ids(input_ids: torch.Tensor, future_token_ids_map: torch.Tensor) -> None:
    input_ids[:] = torch.where(input_ids < 0, future_token_ids_map[torch.clamp(-input_ids, min=0)], input_ids)


class TpModelWorkerClient:
    def __init__(self, worker, device: str = "cuda:0"):
        self.worker = worker
        self.device = torch.device(device)
        self.future_token_ids_ct = 0
        self.future_token_ids_map = torch.zeros(FUTURE_MAP_SIZE, dtype=torch.int64, device=self.device)
        self.forward_stream = torch.cuda.Stream(device=self.device)
        self.input_queue: "queue.Queue" = queue.Queue()
        self.output_queue: "queue.Queue" = queue.Queue()
        self.forward_thread = threading.Thread(target=self.forward_thread_func, daemon=True)
        self.forward_thread.start()

    def forward_thread_func(self) -> None:
        with torch.cuda.stream(self.forward_stream):
            self.forward_thread_func_()

    @torch.no_grad()
    def forward_thread_func_(self) -> None:
        while True:
            batch, future_start, sync_event = self.input_queue.get()
            if batch is None:
                return
            self.forward_stream.wait_event(sync_event)
            resolve_future_token_ids(batch.input_ids, self.future_token_ids_map)
            next_token_ids, logprobs = self.worker.forward_batch_generation(batch)
            bs = next_token_ids.numel()
            self.future_token_ids_map[future_start + 1 : future_start + 1 + bs] = next_token_ids
            out = HostBatchOutput(
                token_ids=torch.empty(bs, dtype=next_token_ids.dtype, pin_memory=True),
                logprobs=torch.empty(bs, dtype=logprobs.dtype, pin_memory=True),
                num_reqs=bs,
            )
            copy_outputs_to_host([(out.token_ids, next_token_ids), (out.logprobs, logprobs)], self.forward_stream)
            copy_done = torch.cuda.Event()
            copy_done.record()
            self.output_queue.put((out, copy_done))

    def forward_batch_generation(self, batch) -> torch.Tensor:
        sync_event = torch.cuda.Event()
        sync_event.record(torch.cuda.current_stream(self.device))
        bs = len(batch.reqs)
        future_start = self.future_token_ids_ct
        self.input_queue.put((batch, future_start, sync_event))
        self.future_token_ids_ct = (future_start + bs) % (FUTURE_MAP_SIZE - bs - 1)
        return -torch.arange(future_start + 1, future_start + 1 + bs, dtype=torch.int64)
