"""EAGLE-style draft runner."""

import torch

from .streams import use_stream


class EagleDraftRunner:
    def __init__(self, draft_model, num_spec_tokens, max_batch, kv_shape, device="cuda"):
        self.draft_model = draft_model
        self.k = num_spec_tokens
        self.d2h_stream = torch.cuda.Stream(device)
        self.restore_stream = torch.cuda.Stream(device)
        self.token_ids_cpu = torch.empty((max_batch, num_spec_tokens), dtype=torch.int64, pin_memory=True)
        self.copy_done = torch.cuda.Event()
        self.draft_kv = torch.zeros(kv_shape, dtype=torch.float16, device=device)
        self.kv_snapshot = torch.empty(kv_shape, dtype=torch.float16, pin_memory=True)
        self._num_pending = 0

    def _run_draft(self, hidden_states, input_ids, positions):
        tokens = []
        for step in range(self.k):
            logits, hidden_states = self.draft_model(input_ids, positions + step, hidden_states, self.draft_kv)
            input_ids = logits.argmax(dim=-1)
            tokens.append(input_ids)
        return torch.stack(tokens, dim=1)

    def propose(self, hidden_states, input_ids, positions):
        draft_tokens = self._run_draft(hidden_states, input_ids, positions)
        n = draft_tokens.shape[0]
        compute = torch.cuda.current_stream()
        with use_stream(self.d2h_stream) as d2h:
            d2h.wait_stream(compute)
            draft_tokens.record_stream(d2h)
            self.token_ids_cpu[:n].copy_(draft_tokens, non_blocking=True)
            self.copy_done.record()
        self._num_pending = n
        return draft_tokens

    def get_proposals(self):
        n, self._num_pending = self._num_pending, 0
        if not self.copy_done.query():
            self.copy_done.synchronize()
        return self.token_ids_cpu[:n].tolist()

    def snapshot(self, slots):
        self.restore_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.restore_stream):
            for s in slots:
                self.kv_snapshot[:, s].copy_(self.draft_kv[:, s], non_blocking=True)

    def restore_rejected(self, slots):
        self.restore_stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.restore_stream):
            for s in slots:
                self.draft_kv[:, s].copy_(self.kv_snapshot[:, s], non_blocking=True)
        torch.cuda.current_stream().wait_stream(self.restore_stream)
