# SPDX-License-Identifier: Apache-2.0
"""Sampling for multi-token prediction: each request may accept several draft tokens."""

import torch

from .sampler import SampleState, SampleStateTensors, TorchSampler


class MTPSampler(TorchSampler):

    def __init__(self, max_num_sequences, end_id, max_draft_len):
        super().__init__(max_num_sequences, end_id)
        self.max_draft_len = max_draft_len

    def sample_async(self, scheduled_requests, model_outputs) -> SampleState:
        # the MTP worker already verified the drafts on the device
        device = SampleStateTensors(new_tokens=model_outputs["new_tokens"],
                                    new_tokens_lens=model_outputs["new_tokens_lens"])
        host = SampleStateTensors(new_tokens=device.new_tokens.to("cpu", non_blocking=True),
                                  new_tokens_lens=device.new_tokens_lens.to("cpu", non_blocking=True))
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(scheduled_requests=scheduled_requests, device=device, host=host,
                           sampler_event=sampler_event)

    def update_requests(self, state: SampleState) -> None:
        # bookkeeping of accepted drafts for the spec-decoding stats before the common path
        requests = state.scheduled_requests.all_requests()
        # expect: KVG003
        for req, num_new in zip(requests, state.host.new_tokens_lens.tolist()):
            req.py_num_accepted_draft_tokens = num_new - 1
        super().update_requests(state)

    def _process_requests(self, state: SampleState) -> None:
        tokens = state.host.new_tokens.tolist()
        for req, row in zip(state.scheduled_requests.all_requests(), tokens):
            for token in row[:req.py_num_accepted_draft_tokens + 1]:
                req.add_new_token(token)
                if token == self.end_id or req.max_new_tokens_reached():
                    req.set_finished()
                    break
