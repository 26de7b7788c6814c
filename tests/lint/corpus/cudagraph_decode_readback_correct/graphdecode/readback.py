from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class PendingTokens:
    next_ids: torch.Tensor  # pinned host copy of the graph's static output
    done: torch.cuda.Event

    def result(self) -> list[int]:
        self.done.synchronize()
        return self.next_ids.tolist()


class OutputReadback:
    """Drains the graph's static output buffer to the host on its own stream."""

    def __init__(self, device: torch.device | str) -> None:
        self.stream = torch.cuda.Stream(device=device)

    def copy_out(self, static_next_ids: torch.Tensor) -> PendingTokens:
        host = torch.empty(static_next_ids.shape, dtype=static_next_ids.dtype, pin_memory=True)
        with torch.cuda.stream(self.stream):
            host.copy_(static_next_ids, non_blocking=True)
            done = torch.cuda.Event()
            done.record(self.stream)
        return PendingTokens(next_ids=host, done=done)
