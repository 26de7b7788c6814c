from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np
import torch

from .block_table import BlockTable


@dataclass
class CachedRequestState:
    req_id: str
    prompt_token_ids: list[int]
    block_ids: list[int]
    num_computed_tokens: int
    output_token_ids: list[int] = field(default_factory=list)

    @property
    def num_tokens(self) -> int:
        return len(self.prompt_token_ids) + len(self.output_token_ids)


class InputBatch:
    def __init__(self, max_num_reqs: int, max_model_len: int, block_size: int,
                 device: torch.device, pin_memory: bool = True) -> None:
        self.max_num_reqs = max_num_reqs
        self.device = device
        self._req_ids: list[Optional[str]] = [None] * max_num_reqs
        self.req_id_to_index: dict[str, int] = {}
        self.num_computed_tokens_cpu = np.zeros(max_num_reqs, dtype=np.int32)
        self.block_table = BlockTable(max_num_reqs, -(-max_model_len // block_size), pin_memory, device)

        # seq_lens is read by the attention kernel every step, so it stays resident
        self.seq_lens_gpu = torch.zeros(max_num_reqs, dtype=torch.int32, device=device)
        self.seq_lens_cpu = torch.zeros(max_num_reqs, dtype=torch.int32, pin_memory=pin_memory)
        self.seq_lens_np = self.seq_lens_cpu.numpy()
        self.query_start_loc_cpu = torch.zeros(max_num_reqs + 1, dtype=torch.int32, pin_memory=pin_memory)
        self.query_start_loc_np = self.query_start_loc_cpu.numpy()

    @property
    def num_reqs(self) -> int:
        return len(self.req_id_to_index)

    @property
    def req_ids(self) -> list[str]:
        return [r for r in self._req_ids[: self.num_reqs] if r is not None]

    def add_request(self, request: CachedRequestState) -> None:
        req_index = self.num_reqs
        self._req_ids[req_index] = request.req_id
        self.req_id_to_index[request.req_id] = req_index
        self.num_computed_tokens_cpu[req_index] = request.num_computed_tokens
        self.block_table.add_row(request.block_ids, req_index)

    def fill_step_metadata(self, num_scheduled_tokens: np.ndarray) -> int:
        n = self.num_reqs
        self.seq_lens_np[:n] = self.num_computed_tokens_cpu[:n] + num_scheduled_tokens
        self.query_start_loc_np[0] = 0
        np.cumsum(num_scheduled_tokens, out=self.query_start_loc_np[1 : n + 1])
        return int(self.query_start_loc_np[n])
