"""Decode loop: writes each step's KV with the numba kernel on torch's current stream and
evicts pages when the pool runs low."""
from typing import List, Tuple

import torch

from .evictor import HostPageTier
from .kernels import scatter_kv
from .streams import torch_stream_for_numba


class PagedDecoder:
    def __init__(self, model, num_pages: int, page_tokens: int, token_elems: int,
                 num_host_pages: int):
        self.model = model
        self.page_tokens = page_tokens
        self.token_elems = token_elems
        self.pages = torch.zeros((num_pages, page_tokens * token_elems),
                                 dtype=torch.float16, device="cuda")
        self.tier = HostPageTier(self.pages, num_host_pages)

    def step(self, input_ids: torch.Tensor, slot_mapping: torch.Tensor) -> torch.Tensor:
        new_kv, logits = self.model(input_ids)
        scatter_kv[input_ids.shape[0], 128, torch_stream_for_numba()](
            self.pages, slot_mapping, new_kv, self.page_tokens, self.token_elems)
        return logits

    def make_room(self, victims: List[Tuple[int, int]]) -> List[int]:
        return self.tier.evict(victims)

    def bring_back(self, key: int, page: int) -> None:
        self.tier.restore(key, page)
