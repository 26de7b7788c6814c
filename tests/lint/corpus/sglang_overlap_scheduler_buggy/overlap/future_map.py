from __future__ import annotations

import torch


class FutureMap:
    """Placeholders (negative ids) for next-token ids that the forward thread
    has not produced yet when the scheduler builds the next batch."""

    def __init__(self, max_running_requests: int, device: torch.device) -> None:
        self.future_ct = 0
        # Leave some margin so a slot is never overwritten while still referenced.
        self.future_limit = max_running_requests * 3
        self.future_buffer_len = max_running_requests * 5
        self.device = device
        self.token_ids_buf = torch.empty((self.future_buffer_len,), dtype=torch.int64,
                                         device=self.device)

    def update_ct(self, bs: int) -> torch.Tensor:
        cur_future_ct = self.future_ct
        self.future_ct = (cur_future_ct + bs) % self.future_limit
        return torch.arange(-(cur_future_ct + 1), -(cur_future_ct + 1 + bs), -1,
                            dtype=torch.int64, device=self.device)

    def resolve_future(self, input_ids: torch.Tensor) -> None:
        input_ids[:] = torch.where(
            input_ids < 0, self.token_ids_buf[torch.clamp(-input_ids, min=0)], input_ids)

    def store_to_map(self, future_ct: int, bs: int, next_token_ids: torch.Tensor) -> None:
        self.token_ids_buf[future_ct + 1:future_ct + bs + 1] = next_token_ids
