from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import torch

from .kernels import greedy_sample
from .readback import AsyncReadback, ReadbackHandle


@dataclass
class SamplerStats:
    steps: int = 0
    tokens: int = 0
    eos_hits: int = 0
    logprob_sum: float = 0.0

    @property
    def mean_logprob(self) -> float:
        return self.logprob_sum / max(self.tokens, 1)


class GreedySampler:
    """Greedy decoding step whose results are consumed one step late."""

    def __init__(self, eos_token_id: int, track_logprobs: bool = True) -> None:
        self.eos_token_id = eos_token_id
        self.track_logprobs = track_logprobs
        self.stats = SamplerStats()
        self._readback = AsyncReadback()
        self._pending: deque[ReadbackHandle] = deque()

    @torch.inference_mode()
    def step(self, logits: torch.Tensor) -> None:
        token_ids, logprobs = greedy_sample(logits)
        handle = self._readback.start(token_ids, logprobs)
        if self.track_logprobs:
            # expect: KVG003
            self.stats.logprob_sum += float(handle.logprobs.sum())
        self.stats.steps += 1
        self._pending.append(handle)

    def drain(self) -> list[list[int]]:
        """Block until every in-flight step is on the host; oldest first."""
        out: list[list[int]] = []
        while self._pending:
            tokens, _ = self._pending.popleft().result()
            self.stats.tokens += len(tokens)
            self.stats.eos_hits += sum(t == self.eos_token_id for t in tokens)
            out.append(tokens)
        return out
