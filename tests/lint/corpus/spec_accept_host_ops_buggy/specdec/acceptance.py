"""Speculative decoding's acceptance bookkeeping: the verifier counts, on the GPU, how many
draft tokens each request keeps, and copies the counts into a pinned buffer without blocking so
the scheduler can plan the next step while the target model runs. Bug: ``plan_next`` computes
on the pinned counts with tensor operators and ``.any()``, CPU work that reads them at once,
before anything waits for the copy (KVG003 at each read)."""

import torch


class AcceptanceTracker:
    def __init__(self, max_batch, lookahead):
        self.lookahead = lookahead
        self.accepted = torch.zeros(max_batch, dtype=torch.int32, device="cuda")
        self.accepted_host = torch.zeros(max_batch, dtype=torch.int32, pin_memory=True)
        self.counts_ready = torch.cuda.Event()

    def verify(self, draft_tokens, target_logits):
        predicted = target_logits.argmax(dim=-1)
        matches = (predicted == draft_tokens).cumprod(dim=-1)
        torch.sum(matches, dim=-1, out=self.accepted)
        self.accepted_host.copy_(self.accepted, non_blocking=True)
        self.counts_ready.record()

    def plan_next(self, count):
        window = self.accepted_host[:count]
        # expect: KVG003
        rejected = self.lookahead - window
        # expect: KVG003
        if window.eq(self.lookahead).any():
            return rejected, True
        return rejected, False

    def step(self, draft_model, target_model, tokens, count):
        draft = draft_model(tokens)
        logits = target_model(tokens, draft)
        self.verify(draft, logits)
        return self.plan_next(count)
