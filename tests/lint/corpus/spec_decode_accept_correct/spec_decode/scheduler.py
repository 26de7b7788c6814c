from __future__ import annotations

import logging
from dataclasses import dataclass, field

from .outputs import SpecDecodeOutput

logger = logging.getLogger(__name__)


@dataclass
class Request:
    req_id: str
    prompt_token_ids: list[int]
    max_tokens: int
    eos_token_id: int
    output_token_ids: list[int] = field(default_factory=list)
    spec_token_ids: list[int] = field(default_factory=list)
    num_draft_tokens: int = 0
    num_accepted_tokens: int = 0

    @property
    def is_finished(self) -> bool:
        return (len(self.output_token_ids) >= self.max_tokens
                or (bool(self.output_token_ids) and self.output_token_ids[-1] == self.eos_token_id))


class SpecDecodeScheduler:
    def __init__(self) -> None:
        self.running: dict[str, Request] = {}
        self.finished: list[Request] = []

    def update_from_output(self, output: SpecDecodeOutput) -> None:
        # accepted_token_ids() blocks until the step's copies have landed
        accepted = output.accepted_token_ids()
        next_drafts = output.draft_token_ids()
        for req_id, tokens, drafts in zip(output.req_ids, accepted, next_drafts):
            req = self.running.get(req_id)
            if req is None:
                continue  # aborted while the step was in flight
            req.num_draft_tokens += len(req.spec_token_ids)
            req.num_accepted_tokens += len(tokens) - 1
            for tok in tokens:
                req.output_token_ids.append(tok)
                if req.is_finished:
                    break
            if req.is_finished:
                self.finished.append(self.running.pop(req_id))
            else:
                req.spec_token_ids = drafts

    @property
    def acceptance_rate(self) -> float:
        reqs = list(self.running.values()) + self.finished
        drafted = sum(r.num_draft_tokens for r in reqs)
        return sum(r.num_accepted_tokens for r in reqs) / drafted if drafted else 0.0
