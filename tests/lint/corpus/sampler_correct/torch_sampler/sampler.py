import logging
from typing import Optional

import torch

from .handle_logprobs import handle_context_log_probs
from .sample_state import SampleState, SampleStateTensors
from .sampling_utils import greedy_search_sampling_batch, pinned_like

logger = logging.getLogger("tensorrt_llm")


class TorchSampler:

    def __init__(self, max_num_sequences: int, end_id: int):
        self.max_num_sequences = max_num_sequences
        self.end_id = end_id

    def sample_async(self, scheduled_requests, model_outputs) -> SampleState:
        logits = model_outputs["logits"]
        want_log_probs = any(r.py_return_log_probs
                             for r in scheduled_requests.all_requests())
        new_tokens, log_probs = greedy_search_sampling_batch(logits, want_log_probs)

        host_log_probs: Optional[torch.Tensor] = None
        new_tokens_host = new_tokens.to("cpu", non_blocking=True)
        if log_probs is not None:
            host_log_probs = pinned_like(log_probs)
            host_log_probs.copy_(log_probs, non_blocking=True)

        sampler_event = torch.cuda.Event()
        sampler_event.record()
        return SampleState(
            scheduled_requests=scheduled_requests,
            device=SampleStateTensors(new_tokens=new_tokens, log_probs=log_probs),
            host=SampleStateTensors(new_tokens=new_tokens_host, log_probs=host_log_probs),
            sampler_event=sampler_event,
        )

    def update_requests(self, state: SampleState) -> None:
        state.sampler_event.synchronize()
        handle_context_log_probs(state)
        new_tokens = state.host.new_tokens.tolist()
        for request in state.scheduled_requests.all_requests():
            if request.is_context_init_state and not request.is_last_context_chunk:
                continue
            token = new_tokens[request.py_seq_slot]
            request.add_new_token(token)
            if token == self.end_id or request.reached_max_length():
                request.finish()
                state.finished_ids.append(request.py_request_id)
