# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
from typing import Any, List, Optional

import torch

from tensorrt_llm._utils import nvtx_range

from .constants import END_ID_UNSET, LOGPROB_DTYPE, MAX_NUM_SEQUENCES, TOKEN_DTYPE
from .logprobs import flush_log_probs, stash_log_probs
from .state import SampleState, SampleStateTensors


class GreedyTorchSampler:
    """Greedy sampler that works on whichever accelerator torch was built for."""

    def __init__(self, max_num_sequences: int = MAX_NUM_SEQUENCES,
                 device: Optional[torch.device] = None):
        self._device = device or torch.accelerator.current_accelerator()
        self._device_mod = torch.get_device_module(self._device)
        self._new_tokens = torch.full((max_num_sequences,), END_ID_UNSET,
                                      dtype=TOKEN_DTYPE, device=self._device)

    @nvtx_range("sample_async")
    def sample_async(self, requests: List[Any], logits: torch.Tensor) -> SampleState:
        num_seqs = len(requests)
        slots_host = torch.tensor([r.py_seq_slot for r in requests], dtype=torch.int64,
                                  pin_memory=True)
        slots = slots_host.to(self._device, non_blocking=True)
        step_logits = logits[:num_seqs]
        tokens = torch.argmax(step_logits, dim=-1)
        self._new_tokens.index_copy_(0, slots, tokens.to(TOKEN_DTYPE))

        log_probs_host = None
        if any(r.py_return_log_probs for r in requests):
            log_probs = torch.log_softmax(step_logits.to(LOGPROB_DTYPE), dim=-1)
            picked = log_probs.gather(1, tokens.unsqueeze(1)).squeeze(1)
            log_probs_host = picked.to("cpu", non_blocking=True)

        new_tokens_host = self._new_tokens.to("cpu", non_blocking=True)
        sampler_event = self._device_mod.Event()
        sampler_event.record(torch.accelerator.current_stream(self._device))
        return SampleState(
            requests=list(requests),
            device=SampleStateTensors(new_tokens=self._new_tokens),
            host=SampleStateTensors(new_tokens=new_tokens_host, log_probs=log_probs_host),
            sampler_event=sampler_event,
        )

    @nvtx_range("update_requests")
    def update_requests(self, state: SampleState) -> None:
        state.sampler_event.synchronize()
        if state.host.log_probs is not None:
            stash_log_probs(state.requests, state.host.log_probs)
        tokens = state.host.new_tokens.tolist()
        for req in state.requests:
            token = tokens[req.py_seq_slot]
            req.add_new_token(token, 0)
            flush_log_probs(req, token)
            req.py_decoding_iter += 1
