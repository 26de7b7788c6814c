from typing import List

import torch

from tensorrt_llm.logger import logger

from .llm_request import LlmRequest, LlmRequestState
from .logprobs import append_log_probs, gather_log_probs_async
from .sampler_types import SampleState, SampleStateTensors, SampleStateTensorsHost


class TorchSampler:
    def __init__(self, max_batch_size: int):
        self.max_batch_size = max_batch_size

    def sample_async(self, requests: List[LlmRequest], logits: torch.Tensor) -> SampleState:
        new_tokens = torch.argmax(logits, dim=-1)
        new_tokens_host = new_tokens.to("cpu", non_blocking=True)

        sampler_event = torch.cuda.Event()
        sampler_event.record()

        log_probs_host = None
        if any(r.py_return_log_probs for r in requests):
            log_probs_host = gather_log_probs_async(logits, new_tokens)
        return SampleState(
            requests=requests,
            device=SampleStateTensors(new_tokens=new_tokens),
            host=SampleStateTensorsHost(new_tokens=new_tokens_host, log_probs=log_probs_host),
            sampler_event=sampler_event,
        )

    def update_requests(self, state: SampleState) -> None:
        if state.sampler_event is not None:
            state.sampler_event.synchronize()
        new_tokens = state.host.new_tokens.tolist()
        for req in state.requests:
            if req.state == LlmRequestState.GENERATION_COMPLETE:
                continue
            req.add_new_token(new_tokens[req.py_batch_idx])
        if state.host.log_probs is not None:
            append_log_probs(state.requests, state.host.log_probs)
        logger.debug(f"updated {len(state.requests)} requests")
