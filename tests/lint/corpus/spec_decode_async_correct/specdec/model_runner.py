from __future__ import annotations

import torch

from specdec.outputs import AsyncSpecOutput, SpecBatch
from specdec.rejection_sampler import RejectionSampler


class SpecDecodeModelRunner:
    def __init__(self, model, drafter, num_spec_tokens: int) -> None:
        self.model = model
        self.drafter = drafter
        self.num_spec_tokens = num_spec_tokens
        self.rejection_sampler = RejectionSampler()
        self.async_output_copy_stream = torch.cuda.Stream()

    @torch.inference_mode()
    def execute_model(self, batch: SpecBatch) -> AsyncSpecOutput:
        logits = self.model(batch.input_ids, batch.positions)
        output_token_ids, num_accepted = self.rejection_sampler(batch.draft_token_ids, logits)
        next_draft_ids = self.drafter.propose(output_token_ids, num_accepted, self.num_spec_tokens)
        return self._copy_to_host_async(batch.req_ids, output_token_ids, num_accepted, next_draft_ids)

    def _copy_to_host_async(
        self,
        req_ids: list[str],
        output_token_ids: torch.Tensor,
        num_accepted: torch.Tensor,
        next_draft_ids: torch.Tensor,
    ) -> AsyncSpecOutput:
        default_stream = torch.cuda.current_stream()
        with torch.cuda.stream(self.async_output_copy_stream):
            self.async_output_copy_stream.wait_stream(default_stream)
            sampled_cpu = output_token_ids.to("cpu", non_blocking=True)
            accepted_cpu = num_accepted.to("cpu", non_blocking=True)
            drafts_cpu = next_draft_ids.to("cpu", non_blocking=True)
            copy_ready = torch.cuda.Event()
            copy_ready.record()
        return AsyncSpecOutput(
            req_ids=req_ids,
            sampled_token_ids_cpu=sampled_cpu,
            num_accepted_cpu=accepted_cpu,
            draft_token_ids_cpu=drafts_cpu,
            copy_ready=copy_ready,
            _device_refs=(output_token_ids, num_accepted, next_draft_ids),
        )
