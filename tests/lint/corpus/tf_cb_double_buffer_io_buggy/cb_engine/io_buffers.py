"""Double-buffered pinned host I/O for the continuous batching loop."""
import queue
from dataclasses import dataclass, field
from typing import List

import torch

from .constants import MAX_BATCH_TOKENS, NUM_IO_SLOTS, TOKEN_DTYPE_NAME


@dataclass
class StagedOutputs:
    slot: int
    num_tokens: int
    request_ids: List[str]
    copy_done: torch.cuda.Event = field(repr=False)


class PagedIOBuffers:
    def __init__(self, device: torch.device):
        dtype = getattr(torch, TOKEN_DTYPE_NAME)
        self.device = device
        self.host_inputs = [
            torch.empty(MAX_BATCH_TOKENS, dtype=dtype, pin_memory=True) for _ in range(NUM_IO_SLOTS)
        ]
        self.host_tokens = [
            torch.empty(MAX_BATCH_TOKENS, dtype=dtype, pin_memory=True) for _ in range(NUM_IO_SLOTS)
        ]
        self.copy_stream = torch.cuda.Stream(device=device)
        self._free_slots: "queue.Queue[int]" = queue.Queue()
        for slot in range(NUM_IO_SLOTS):
            self._free_slots.put(slot)

    def acquire_slot(self) -> int:
        return self._free_slots.get()

    def release_slot(self, slot: int) -> None:
        self._free_slots.put(slot)

    def stage_inputs(self, slot: int, token_ids: List[int]) -> int:
        n = len(token_ids)
        self.host_inputs[slot][:n] = torch.tensor(token_ids, dtype=self.host_inputs[slot].dtype)
        return n

    def stage_outputs(
        self, slot: int, next_tokens: torch.Tensor, request_ids: List[str], compute_stream: torch.cuda.Stream
    ) -> StagedOutputs:
        n = next_tokens.numel()
        self.copy_stream.wait_stream(compute_stream)
        with torch.cuda.stream(self.copy_stream):
            self.host_tokens[slot][:n].copy_(next_tokens, non_blocking=True)
            copy_done = torch.cuda.Event()
            copy_done.record(self.copy_stream)
        next_tokens.record_stream(self.copy_stream)
        return StagedOutputs(slot=slot, num_tokens=n, request_ids=request_ids, copy_done=copy_done)
