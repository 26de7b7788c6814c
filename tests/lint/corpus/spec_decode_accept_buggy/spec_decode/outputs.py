from __future__ import annotations

from dataclasses import dataclass, field

import torch

PLACEHOLDER_TOKEN_ID = -1


@dataclass
class SpecDecodeOutput:
    """Host-side view of one speculative step.

    The tensors live in pinned memory owned by the worker and are filled by
    non-blocking copies; ``copy_event`` completes once they are valid.
    """

    req_ids: list[str]
    sampled_token_ids_cpu: torch.Tensor  # [num_reqs, k + 1], PLACEHOLDER_TOKEN_ID padded
    num_accepted_cpu: torch.Tensor  # [num_reqs]
    draft_token_ids_cpu: torch.Tensor  # [num_reqs, k], proposals for the next step
    copy_event: torch.cuda.Event
    _synced: bool = field(default=False, repr=False)

    def wait(self) -> None:
        if not self._synced:
            self.copy_event.synchronize()
            self._synced = True

    def accepted_token_ids(self) -> list[list[int]]:
        self.wait()
        counts = self.num_accepted_cpu.tolist()
        rows = self.sampled_token_ids_cpu.tolist()
        # the bonus token at position num_accepted is always emitted
        return [row[: c + 1] for row, c in zip(rows, counts)]

    def draft_token_ids(self) -> list[list[int]]:
        # expect: KVG003
        return self.draft_token_ids_cpu.tolist()
