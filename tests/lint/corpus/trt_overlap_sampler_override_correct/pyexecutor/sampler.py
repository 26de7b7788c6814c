# SPDX-License-Identifier: Apache-2.0
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    new_tokens_lens: Optional[torch.Tensor] = None


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: object
    device: Optional[SampleStateTensors] = None
    host: Optional[SampleStateTensors] = None
    sampler_event: Optional[torch.cuda.Event] = None


class Sampler(ABC):

    @abstractmethod
    def sample_async(self, scheduled_requests, model_outputs) -> SampleState:
        """Queue sampling and the device-to-host copies of its results."""

    @abstractmethod
    def _process_requests(self, state: SampleState) -> None:
        """Hand the host results of ``state`` to its requests."""

    def update_requests(self, state: SampleState) -> None:
        if state.sampler_event is not None:
            state.sampler_event.synchronize()
        self._process_requests(state)


class TorchSampler(Sampler):

    def __init__(self, max_num_sequences, end_id):
        self.end_id = end_id
        self.new_tokens = torch.zeros(max_num_sequences, dtype=torch.long, device="cuda")

    def sample_async(self, scheduled_requests, model_outputs) -> SampleState:
        logits = model_outputs["logits"]
        num = logits.shape[0]
        torch.argmax(logits, dim=-1, out=self.new_tokens[:num])
        device = SampleStateTensors(new_tokens=self.new_tokens[:num])
        host = SampleStateTensors(new_tokens=device.new_tokens.to("cpu", non_blocking=True))
        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(scheduled_requests=scheduled_requests, device=device, host=host,
                           sampler_event=sampler_event)

    def _process_requests(self, state: SampleState) -> None:
        tokens = state.host.new_tokens.tolist()
        for req, token in zip(state.scheduled_requests.all_requests(), tokens):
            req.add_new_token(token)
            if token == self.end_id or req.max_new_tokens_reached():
                req.set_finished()


def create_sampler(spec_config, max_num_sequences, end_id):
    if spec_config is not None and spec_config.spec_dec_mode == "MTP":
        from .mtp_sampler import MTPSampler
        return MTPSampler(max_num_sequences, end_id, spec_config.max_draft_len)
    return TorchSampler(max_num_sequences, end_id)
