from __future__ import annotations

from typing import Any, Callable

import torch

from .collector import MetricsCollector
from .counters import GpuCounters

StepFn = Callable[[Any], dict[str, torch.Tensor]]


class EngineLoop:
    """Busy loop of the engine core; model work runs on a dedicated stream."""

    def __init__(self, model_step: StepFn, device: torch.device, metrics_interval: int = 50) -> None:
        self._model_step = model_step
        self._stream = torch.cuda.Stream(device=device)
        # Allocate and zero the counters on the stream that updates them.
        with torch.cuda.stream(self._stream):
            self.counters = GpuCounters(device)
        self.metrics = MetricsCollector(self.counters, interval=metrics_interval)
        self.step_id = 0

    def step(self, batch: Any) -> list[int]:
        with torch.cuda.stream(self._stream):
            out = self._model_step(batch)
            # Blocking: the scheduler needs the sampled ids for the next step anyway.
            sampled = out["sampled_token_ids"].tolist()
            # Counter updates are enqueued after the sync so they overlap with
            # scheduling of the next step.
            self.counters.add_tokens(out["num_prompt_tokens"], out["num_generated_tokens"])
            if "num_draft_tokens" in out:
                self.counters.add_spec_decode(out["num_draft_tokens"], out["num_accepted_tokens"])
            self.counters.add_finished(out["finished"])
            counters_updated = torch.cuda.Event()
            counters_updated.record(self._stream)

        self.metrics.maybe_snapshot(self.step_id, after=counters_updated)
        self.step_id += 1
        return sampled
