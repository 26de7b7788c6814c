"""Top-k logits copied to pinned host memory on a side stream, so the scheduler can read
them one step later without stalling the GPU. ``result()`` is polled: it raises while the
copy is still in flight instead of blocking."""

from typing import List, Optional

import torch


class ReadbackPending(RuntimeError):
    pass


class AsyncLogitsReadback:
    def __init__(self, max_tokens: int, k: int, device: torch.device) -> None:
        self.k = k
        self.stream = torch.cuda.Stream(device=device)
        self.host_values = torch.empty((max_tokens, k), dtype=torch.float32, pin_memory=True)
        self.host_ids = torch.empty((max_tokens, k), dtype=torch.int64, pin_memory=True)
        self.done = torch.cuda.Event()
        self.rows: Optional[int] = None

    def start(self, logits: torch.Tensor) -> None:
        values, ids = torch.topk(logits.float(), self.k, dim=-1)
        rows = logits.shape[0]
        self.stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.stream):
            self.host_values[:rows].copy_(values, non_blocking=True)
            self.host_ids[:rows].copy_(ids, non_blocking=True)
            self.done.record()
        values.record_stream(self.stream)
        ids.record_stream(self.stream)
        self.rows = rows

    def start_and_poll(self, logits: torch.Tensor) -> List[List[int]]:
        """For a decode step short enough that the copy may land before the host gets here."""
        self.start(logits)
        return self.result()

    def result(self) -> List[List[int]]:
        if self.rows is None:
            raise ReadbackPending("start() was not called")
        if not self.done.query():
            raise ReadbackPending("top-k copy still in flight")
        return self.host_ids[: self.rows].tolist()
