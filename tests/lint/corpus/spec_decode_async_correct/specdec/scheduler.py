from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Optional

import torch

from specdec.outputs import AsyncSpecOutput, SpecBatch


@dataclass
class Request:
    req_id: str
    prompt_token_ids: list[int]
    output_token_ids: list[int] = field(default_factory=list)
    spec_token_ids: list[int] = field(default_factory=list)
    num_computed_tokens: int = 0

    @property
    def last_token_id(self) -> int:
        return (self.output_token_ids or self.prompt_token_ids)[-1]


class Scheduler:
    def __init__(self, num_spec_tokens: int) -> None:
        self.num_spec_tokens = num_spec_tokens
        self.requests: dict[str, Request] = {}

    def schedule(self) -> Optional[SpecBatch]:
        running = [r for r in self.requests.values() if len(r.spec_token_ids) == self.num_spec_tokens]
        if not running:
            return None
        input_ids = [[r.last_token_id, *r.spec_token_ids] for r in running]
        positions = [
            list(range(r.num_computed_tokens, r.num_computed_tokens + self.num_spec_tokens + 1))
            for r in running
        ]
        for r in running:
            r.num_computed_tokens += self.num_spec_tokens + 1
        ids = torch.tensor(input_ids, dtype=torch.long, device="cuda")
        return SpecBatch(
            req_ids=[r.req_id for r in running],
            input_ids=ids,
            positions=torch.tensor(positions, dtype=torch.long, device="cuda"),
            draft_token_ids=ids[:, 1:],
        )

    def update_from_output(self, output: AsyncSpecOutput) -> list[tuple[str, list[int]]]:
        # get_draft_token_ids() waits for the step's host copies to land.
        drafts = output.get_draft_token_ids()
        num_accepted = output.num_accepted_cpu.tolist()
        sampled = output.sampled_token_ids_cpu.tolist()
        results = []
        for i, req_id in enumerate(output.req_ids):
            req = self.requests.get(req_id)
            if req is None:  # aborted while the step was in flight
                continue
            new_tokens = sampled[i][: num_accepted[i] + 1]
            req.output_token_ids.extend(new_tokens)
            req.num_computed_tokens -= self.num_spec_tokens - num_accepted[i]
            req.spec_token_ids = drafts[i]
            results.append((req_id, new_tokens))
        return results


class EngineCore:
    """Overlaps scheduling/output processing of step N with GPU work of step N+1."""

    def __init__(self, scheduler: Scheduler, model_runner, batch_queue_size: int = 2) -> None:
        self.scheduler = scheduler
        self.model_runner = model_runner
        self.batch_queue_size = batch_queue_size
        self.batch_queue: deque[AsyncSpecOutput] = deque()

    def step_with_batch_queue(self) -> list[tuple[str, list[int]]]:
        if len(self.batch_queue) < self.batch_queue_size:
            batch = self.scheduler.schedule()
            if batch is not None:
                self.batch_queue.append(self.model_runner.execute_model(batch))
                if len(self.batch_queue) < self.batch_queue_size:
                    return []
        if not self.batch_queue:
            return []
        return self.scheduler.update_from_output(self.batch_queue.popleft())
