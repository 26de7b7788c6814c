# SPDX-License-Identifier: Apache-2.0
import logging
from dataclasses import dataclass, field
from typing import Optional, Union

import torch
import torch.nn as nn

from v1_runner.async_output import AsyncGPUModelRunnerOutput
from v1_runner.outputs import LogprobsLists, ModelRunnerOutput, SamplerOutput
from v1_runner.sample import Sampler

logger = logging.getLogger(__name__)


@dataclass
class SchedulerOutput:
    req_ids: list[str]
    input_ids: list[int]
    logits_indices: list[int]
    max_num_logprobs: Optional[int] = None
    # requests still mid-prefill: their sampled token is thrown away
    discard_req_indices: list[int] = field(default_factory=list)


class GPUModelRunner:
    def __init__(self, model: nn.Module, device: torch.device, use_async_scheduling: bool = True):
        self.model = model
        self.device = device
        self.sampler = Sampler()
        self.use_async_scheduling = use_async_scheduling
        self.async_output_copy_stream = torch.cuda.Stream() if use_async_scheduling else None
        logger.info("async scheduling: %s", use_async_scheduling)

    def _to_device(self, values: list[int], dtype: torch.dtype) -> torch.Tensor:
        staged = torch.tensor(values, dtype=dtype, pin_memory=True)
        return staged.to(self.device, non_blocking=True)

    @staticmethod
    def _bookkeeping_sync(output: ModelRunnerOutput, sampler_output: SamplerOutput,
                          discard_req_indices: list[int]) -> ModelRunnerOutput:
        sampled = sampler_output.sampled_token_ids.tolist()
        for i in discard_req_indices:
            sampled[i].clear()
        output.sampled_token_ids = sampled
        if sampler_output.logprobs_tensors is not None:
            lp = sampler_output.logprobs_tensors
            output.logprobs = LogprobsLists(lp.logprob_token_ids.tolist(), lp.logprobs.tolist())
        return output

    @torch.inference_mode()
    def execute_model(
        self, scheduler_output: SchedulerOutput
    ) -> Union[ModelRunnerOutput, AsyncGPUModelRunnerOutput]:
        input_ids = self._to_device(scheduler_output.input_ids, torch.int32)
        logits_indices = self._to_device(scheduler_output.logits_indices, torch.int64)

        hidden_states = self.model(input_ids)
        logits = self.model.compute_logits(hidden_states[logits_indices])
        sampler_output = self.sampler(logits, scheduler_output.max_num_logprobs)

        req_ids = list(scheduler_output.req_ids)
        output = ModelRunnerOutput(req_ids, {rid: i for i, rid in enumerate(req_ids)})
        if not self.use_async_scheduling:
            return self._bookkeeping_sync(output, sampler_output, scheduler_output.discard_req_indices)
        return AsyncGPUModelRunnerOutput(
            output,
            sampler_output,
            scheduler_output.discard_req_indices,
            self.async_output_copy_stream,
        )
