"""Host-side stop checks run on the sampled tokens of a step."""

from typing import List, Tuple

import torch


class StopCriteria:
    def __init__(self, eos_token_id: int, stop_words: List[List[int]]):
        self.eos_token_id = eos_token_id
        self.stop_words = [tuple(w) for w in stop_words]

    def _hits_stop_word(self, output: List[int]) -> bool:
        return any(tuple(output[-len(w):]) == w for w in self.stop_words if len(output) >= len(w))

    def __call__(self, new_tokens: torch.Tensor, requests) -> Tuple[List[int], List[bool]]:
        token_ids = new_tokens.tolist()
        finished = []
        for tok, req in zip(token_ids, requests):
            out = req.output_token_ids + [tok]
            finished.append(tok == self.eos_token_id
                            or len(out) >= req.max_new_tokens
                            or self._hits_stop_word(out))
        return token_ids, finished
