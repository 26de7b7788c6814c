from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class ReadbackHandle:
    token_ids: torch.Tensor  # pinned, int32
    logprobs: torch.Tensor  # pinned, float32
    done: torch.cuda.Event

    def ready(self) -> bool:
        return self.done.query()

    def result(self) -> tuple[list[int], list[float]]:
        self.done.synchronize()
        return self.token_ids.tolist(), self.logprobs.tolist()


class AsyncReadback:
    """Copies sampler outputs to pinned host memory on a dedicated stream."""

    def __init__(self, device: torch.device | None = None) -> None:
        self.stream = torch.cuda.Stream(device=device)

    def start(self, token_ids: torch.Tensor, logprobs: torch.Tensor) -> ReadbackHandle:
        host_ids = torch.empty(token_ids.shape, dtype=token_ids.dtype, pin_memory=True)
        host_lps = torch.empty(logprobs.shape, dtype=logprobs.dtype, pin_memory=True)
        with torch.cuda.stream(self.stream):
            for host, dev in ((host_ids, token_ids), (host_lps, logprobs)):
                # the caching allocator must not recycle the source under us
                dev.record_stream(self.stream)
                host.copy_(dev, non_blocking=True)
            done = torch.cuda.Event()
            done.record(self.stream)
        return ReadbackHandle(token_ids=host_ids, logprobs=host_lps, done=done)
