"""Step loop: forward, sample, update bookkeeping, retire finished requests."""

from typing import Callable, Dict, List

import torch

from .context import DynamicInferenceContext


class DynamicInferenceEngine:
    def __init__(self, model: Callable, context: DynamicInferenceContext):
        self.model = model
        self.context = context
        self.generated: Dict[int, List[int]] = {}
        self.finished_request_ids: List[int] = []

    def add_request(self, request_id: int) -> None:
        self.context.add_request(request_id)
        self.generated[request_id] = []

    def step(self) -> List[int]:
        logits = self.model(self.context)
        new_tokens = torch.argmax(logits, dim=-1)
        self.context.update_requests(new_tokens)
        return self._post_process_requests()

    def _post_process_requests(self) -> List[int]:
        meta = self.context.host_metadata
        ids = meta.request_ids.tolist()
        tokens = meta.last_tokens.tolist()
        finished = meta.finished.tolist()
        newly_done = []
        for rid, tok, done in zip(ids, tokens, finished):
            self.generated[rid].append(tok)
            if done:
                newly_done.append(rid)
        if newly_done:
            self.context.compact(~self.context.request_finished)
            self.finished_request_ids.extend(newly_done)
        return newly_done
