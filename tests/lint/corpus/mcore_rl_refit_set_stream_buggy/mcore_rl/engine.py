# Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
"""A decode loop with overlap scheduling and a refit point between steps."""

from dataclasses import dataclass, field

import torch


@dataclass
class StepState:
    step: int
    next_ids: torch.Tensor
    tokens_host: torch.Tensor
    done: torch.cuda.Event = field(default_factory=torch.cuda.Event)


class OverlapRolloutEngine:

    def __init__(self, model, refitter, eod_id, max_new_tokens):
        self.model = model
        self.refitter = refitter
        self.eod_id = eod_id
        self.max_new_tokens = max_new_tokens

    @torch.no_grad()
    def _launch(self, step, input_ids):
        logits = self.model(input_ids)
        next_ids = logits[:, -1].argmax(dim=-1)
        tokens_host = torch.empty(next_ids.shape, dtype=next_ids.dtype, pin_memory=True)
        tokens_host.copy_(next_ids, non_blocking=True)
        state = StepState(step, next_ids, tokens_host)
        state.done.record()
        return state

    def generate(self, input_ids):
        generated = [[] for _ in range(input_ids.shape[0])]
        current = self._launch(0, input_ids.cuda())
        while True:
            # queue the following step before the host looks at this one
            following = self._launch(current.step + 1, current.next_ids.unsqueeze(-1))
            current.done.synchronize()
            for row, tok in zip(generated, current.tokens_host.tolist()):
                if not row or row[-1] != self.eod_id:
                    row.append(tok)
            if all(r[-1] == self.eod_id or len(r) >= self.max_new_tokens for r in generated):
                return generated
            # a newer policy may have been published: later tokens come from it
            self.refitter.maybe_refit()
            current = following
