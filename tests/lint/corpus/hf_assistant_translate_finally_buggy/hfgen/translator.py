"""Token-id translation between an assistant model's vocabulary and the target's, for assisted
generation with different tokenizers. Drafted ids are pulled into a reusable pinned buffer so
that each step costs one small transfer instead of a pageable copy per row."""

from typing import Dict, Iterator, List

import torch

SUPPRESS_TOKEN_ID = -1


class AssistantToTargetTranslator:
    def __init__(self, target_vocab: Dict[str, int], assistant_vocab: Dict[str, int],
                 max_batch: int = 8, max_draft: int = 64):
        self._assistant_to_target: Dict[int, int] = {
            a_id: target_vocab[tok] for tok, a_id in assistant_vocab.items() if tok in target_vocab
        }
        self._target_to_assistant: Dict[int, int] = {t: a for a, t in self._assistant_to_target.items()}
        self._host_ids = torch.empty((max_batch, max_draft), dtype=torch.long, pin_memory=True)
        self._copy_done = torch.cuda.Event()

    @staticmethod
    def _iter_rows(host_ids: torch.Tensor) -> Iterator[List[int]]:
        for b in range(host_ids.shape[0]):
            # expect: KVG003
            yield host_ids[b].tolist()

    def _map_row(self, row: List[int]) -> List[int]:
        return [self._assistant_to_target.get(tok, SUPPRESS_TOKEN_ID) for tok in row]

    def get_target_ids(self, assistant_new_ids: torch.Tensor) -> torch.Tensor:
        batch, n = assistant_new_ids.shape
        host = self._host_ids[:batch, :n]
        host.copy_(assistant_new_ids, non_blocking=True)
        self._copy_done.record()
        try:
            rows = [self._map_row(row) for row in self._iter_rows(host)]
        finally:
            # the pinned buffer is reused by the next draft: it must not be overwritten while
            # this step's copy is still in flight
            self._copy_done.synchronize()
        return torch.tensor(rows, dtype=torch.long, device=assistant_new_ids.device)

    def get_assistant_ids(self, target_ids: List[int]) -> List[int]:
        return [self._target_to_assistant.get(tok, SUPPRESS_TOKEN_ID) for tok in target_ids]
