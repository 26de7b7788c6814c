from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

import torch

from v1_runner.async_output import AsyncGPUModelRunnerOutput
from v1_runner.outputs import LogprobsTensors, ModelRunnerOutput, SamplerOutput

logger = logging.getLogger(__name__)


@dataclass
class SchedulerOutput:
    req_ids: list[str]
    input_ids: torch.Tensor
    partial_req_indices: list[int]
    max_num_logprobs: int = 0


class GPUModelRunner:
    def __init__(self, model: Callable[[torch.Tensor], torch.Tensor], device: torch.device):
        self.model = model
        self.device = device
        self.async_output_copy_stream = torch.Stream(device=device)

    def _sample(self, logits: torch.Tensor, max_num_logprobs: int) -> SamplerOutput:
        sampled = torch.argmax(logits, dim=-1, keepdim=True)
        if not max_num_logprobs:
            return SamplerOutput(sampled_token_ids=sampled)
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        topk_lp, topk_ids = torch.topk(logprobs, max_num_logprobs, dim=-1)
        sampled_lp = logprobs.gather(-1, sampled)
        ranks = (logprobs > sampled_lp).sum(-1)
        return SamplerOutput(
            sampled_token_ids=sampled,
            logprobs_tensors=LogprobsTensors(
                torch.cat([sampled, topk_ids], dim=1),
                torch.cat([sampled_lp, topk_lp], dim=1),
                ranks,
            ),
        )

    @torch.inference_mode()
    def execute_model(self, scheduler_output: SchedulerOutput) -> AsyncGPUModelRunnerOutput:
        input_ids = scheduler_output.input_ids.to(self.device, non_blocking=True)
        logits = self.model(input_ids)
        sampler_output = self._sample(logits, scheduler_output.max_num_logprobs)
        output = ModelRunnerOutput(
            req_ids=scheduler_output.req_ids,
            req_id_to_index={rid: i for i, rid in enumerate(scheduler_output.req_ids)},
        )
        return AsyncGPUModelRunnerOutput(
            output,
            sampler_output,
            scheduler_output.partial_req_indices,
            self.async_output_copy_stream,
        )
