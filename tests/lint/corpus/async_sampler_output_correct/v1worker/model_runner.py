# SPDX-License-Identifier: Apache-2.0
import logging
from typing import Any, Optional, Union

import torch
import torch.nn as nn

from .async_output import AsyncGPUModelRunnerOutput
from .outputs import LogprobsTensors, ModelRunnerOutput, SamplerOutput

logger = logging.getLogger(__name__)


class Sampler(nn.Module):
    def forward(self, logits: torch.Tensor, max_num_logprobs: Optional[int]) -> SamplerOutput:
        sampled = logits.argmax(dim=-1)
        logprobs_tensors = None
        if max_num_logprobs is not None:
            raw_logprobs = logits.log_softmax(dim=-1, dtype=torch.float32)
            topk_logprobs, topk_ids = raw_logprobs.topk(max_num_logprobs, dim=-1)
            sampled_logprob = raw_logprobs.gather(-1, sampled.unsqueeze(-1))
            ranks = (raw_logprobs >= sampled_logprob).sum(-1)
            logprobs_tensors = LogprobsTensors(
                torch.cat([sampled.unsqueeze(-1), topk_ids], dim=-1).to(torch.int32),
                torch.cat([sampled_logprob, topk_logprobs], dim=-1),
                ranks,
            )
        return SamplerOutput(
            sampled_token_ids=sampled.to(torch.int32).unsqueeze(-1),
            logprobs_tensors=logprobs_tensors,
        )


class GPUModelRunner:
    def __init__(self, model: nn.Module, device: torch.device, async_scheduling: bool):
        self.model = model
        self.device = device
        self.sampler = Sampler()
        self.use_async_scheduling = async_scheduling
        self.async_output_copy_stream: Optional[torch.cuda.Stream] = (
            torch.cuda.Stream() if async_scheduling else None
        )

    @torch.inference_mode()
    def execute_model(
        self, scheduler_output: Any
    ) -> Union[ModelRunnerOutput, AsyncGPUModelRunnerOutput]:
        input_ids = scheduler_output.input_ids.to(self.device, non_blocking=True)
        positions = scheduler_output.positions.to(self.device, non_blocking=True)
        hidden_states = self.model(input_ids, positions)
        logits = self.model.compute_logits(hidden_states[scheduler_output.logits_indices])
        sampler_output = self.sampler(logits, scheduler_output.max_num_logprobs)

        req_ids = list(scheduler_output.req_ids)
        output = ModelRunnerOutput(
            req_ids=req_ids,
            req_id_to_index={rid: i for i, rid in enumerate(req_ids)},
        )
        invalid_req_indices = list(scheduler_output.partial_prefill_indices)
        if not self.use_async_scheduling:
            output.sampled_token_ids = sampler_output.sampled_token_ids.tolist()
            for i in invalid_req_indices:
                output.sampled_token_ids[i].clear()
            if sampler_output.logprobs_tensors is not None:
                output.logprobs = sampler_output.logprobs_tensors.tolists()
            return output

        return AsyncGPUModelRunnerOutput(
            model_runner_output=output,
            sampler_output=sampler_output,
            invalid_req_indices=invalid_req_indices,
            async_output_copy_stream=self.async_output_copy_stream,
        )
