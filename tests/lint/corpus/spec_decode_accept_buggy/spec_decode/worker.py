from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .outputs import SpecDecodeOutput
from .rejection_sampler import RejectionSampler


@dataclass
class SpecBatch:
    req_ids: list[str]
    input_ids: torch.Tensor  # [num_reqs, k + 1] on device: last token + k drafts
    positions: torch.Tensor  # [num_reqs, k + 1]
    draft_token_ids: torch.Tensor  # [num_reqs, k] on device


class DraftModelProposer:
    def __init__(self, draft_model: nn.Module, num_speculative_tokens: int) -> None:
        self.model = draft_model
        self.k = num_speculative_tokens

    @torch.inference_mode()
    def propose(self, output_token_ids: torch.Tensor, num_accepted: torch.Tensor,
                positions: torch.Tensor) -> torch.Tensor:
        # start from the bonus token of every request
        last = output_token_ids.gather(1, num_accepted.long().unsqueeze(1))
        pos = positions.gather(1, num_accepted.long().unsqueeze(1)) + 1
        drafts = []
        for _ in range(self.k):
            logits = self.model(last, pos)
            last = logits[:, -1].argmax(dim=-1, keepdim=True)
            drafts.append(last)
            pos = pos + 1
        return torch.cat(drafts, dim=1)


class SpecDecodeWorker:
    def __init__(self, target_model: nn.Module, proposer: DraftModelProposer, max_num_reqs: int) -> None:
        self.target_model = target_model
        self.proposer = proposer
        self.rejection_sampler = RejectionSampler()
        k = proposer.k
        self._sampled_cpu = torch.empty((max_num_reqs, k + 1), dtype=torch.int64, pin_memory=True)
        self._num_accepted_cpu = torch.empty((max_num_reqs,), dtype=torch.int32, pin_memory=True)
        self._draft_cpu = torch.empty((max_num_reqs, k), dtype=torch.int64, pin_memory=True)
        self._d2h_stream = torch.cuda.Stream()
        self._sampled_ready = torch.cuda.Event()

    @torch.inference_mode()
    def execute_model(self, batch: SpecBatch) -> SpecDecodeOutput:
        compute_stream = torch.cuda.current_stream()
        n = len(batch.req_ids)

        logits = self.target_model(batch.input_ids, batch.positions)
        output_token_ids, num_accepted = self.rejection_sampler(batch.draft_token_ids, logits)
        self._sampled_ready.record(compute_stream)

        next_drafts = self.proposer.propose(output_token_ids, num_accepted, batch.positions)

        self._d2h_stream.wait_event(self._sampled_ready)
        with torch.cuda.stream(self._d2h_stream):
            self._sampled_cpu[:n].copy_(output_token_ids, non_blocking=True)
            self._num_accepted_cpu[:n].copy_(num_accepted, non_blocking=True)
            # expect: KVG001
            self._draft_cpu[:n].copy_(next_drafts, non_blocking=True)
            copy_event = torch.cuda.Event()
            copy_event.record(self._d2h_stream)

        return SpecDecodeOutput(
            req_ids=list(batch.req_ids),
            sampled_token_ids_cpu=self._sampled_cpu[:n],
            num_accepted_cpu=self._num_accepted_cpu[:n],
            draft_token_ids_cpu=self._draft_cpu[:n],
            copy_event=copy_event,
        )
