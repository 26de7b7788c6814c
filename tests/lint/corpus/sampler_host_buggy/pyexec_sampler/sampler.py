import logging
from dataclasses import dataclass

import torch

from .constants import BEAM, DEFAULT_MAX_NUM_SEQUENCES, MAX_BEAM_WIDTH
from .logprobs import append_log_probs
from .sample_state import (
    HostTensorStaging,
    SampleState,
    SampleStateTensors,
    ScheduledRequests,
    copy_to_host,
)

logger = logging.getLogger(__name__)


@dataclass(kw_only=True, frozen=True)
class TorchSamplerArgs:
    max_num_sequences: int = DEFAULT_MAX_NUM_SEQUENCES
    return_log_probs: bool = False


class TorchSampler:
    def __init__(self, args: TorchSamplerArgs):
        self.max_num_sequences = args.max_num_sequences
        self.return_log_probs = args.return_log_probs
        self._copy_stream = torch.cuda.Stream()
        self._staging = HostTensorStaging(args.max_num_sequences, args.return_log_probs)
        self.store = {
            "new_tokens": torch.zeros(
                (self.max_num_sequences, MAX_BEAM_WIDTH), dtype=torch.int64, device="cuda"
            )
        }

    def _sample_on_device(self, logits: torch.Tensor) -> SampleStateTensors:
        num_seqs = logits.shape[0]
        new_tokens = self.store["new_tokens"][:num_seqs]
        torch.argmax(logits, dim=-1, keepdim=True, out=new_tokens)
        log_probs = None
        if self.return_log_probs:
            log_probs = torch.log_softmax(logits.float(), dim=-1).gather(-1, new_tokens)
        return SampleStateTensors(new_tokens=new_tokens, log_probs=log_probs)

    def sample_async(self, scheduled_requests: ScheduledRequests, model_outputs) -> SampleState:
        logits = model_outputs["logits"]
        device = self._sample_on_device(logits)
        host = self._staging.view(logits.shape[0])

        with torch.cuda.stream(self._copy_stream):
            copy_to_host(host, device)
            sampler_event = torch.cuda.Event()
            sampler_event.record()

        return SampleState(
            scheduled_requests=scheduled_requests,
            device=device,
            host=host,
            sampler_event=sampler_event,
        )

    def update_requests(self, state: SampleState) -> None:
        assert state.host is not None
        if state.host.log_probs is not None:
            append_log_probs(state.scheduled_requests.all_requests(), state.host.log_probs)
        state.sampler_event.synchronize()

        new_tokens = state.host.new_tokens.tolist()
        for req in state.scheduled_requests.all_requests():
            token = new_tokens[req.py_seq_slot][BEAM]
            req.add_new_token(token, BEAM)
            if token == req.py_end_id or req.max_new_tokens_reached():
                req.finish()
                logger.debug("request %s finished", req.request_id)
