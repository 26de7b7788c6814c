"""Scheduling loop: one forward per step, outputs handed to a worker thread."""
import queue
from typing import Dict, List

import torch

from .constants import OUTPUT_QUEUE_MAXSIZE
from .io_buffers import PagedIOBuffers


class ContinuousBatchProcessor:
    def __init__(self, model: torch.nn.Module, device: str = "cuda:0"):
        self.model = model
        self.device = torch.device(device)
        self.io = PagedIOBuffers(self.device)
        self.compute_stream = torch.cuda.Stream(device=self.device)
        self.output_queue: "queue.Queue" = queue.Queue(maxsize=OUTPUT_QUEUE_MAXSIZE)
        self.last_token: Dict[str, int] = {}

    @torch.no_grad()
    def step(self, active: List[str]) -> None:
        slot = self.io.acquire_slot()
        n = self.io.stage_inputs(slot, [self.last_token[r] for r in active])
        with torch.cuda.stream(self.compute_stream):
            input_ids = self.io.host_inputs[slot][:n].to(self.device, non_blocking=True)
            logits = self.model(input_ids.unsqueeze(-1).long())
            next_tokens = torch.argmax(logits[:, -1, :], dim=-1).to(torch.int32)
        staged = self.io.stage_outputs(slot, next_tokens, list(active), self.compute_stream)
        self.output_queue.put(staged)

    def shutdown(self) -> None:
        self.output_queue.put(None)
