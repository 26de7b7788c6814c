import logging
from typing import Optional

import torch

from v1.async_output import AsyncGPUModelRunnerOutput
from v1.outputs import LogprobsTensors, ModelRunnerOutput, SamplerOutput

logger = logging.getLogger(__name__)


class GPUModelRunner:
    def __init__(self, model, device: torch.device, max_num_logprobs: int = 20):
        self.model = model
        self.device = device
        self.max_num_logprobs = max_num_logprobs
        self.async_output_copy_stream = torch.cuda.Stream(device=device)

    def _sample(self, logits: torch.Tensor, num_logprobs: Optional[int]) -> SamplerOutput:
        logprobs = torch.log_softmax(logits, dim=-1, dtype=torch.float32)
        sampled = logits.argmax(dim=-1)
        logprobs_tensors = None
        if num_logprobs is not None:
            k = min(num_logprobs, self.max_num_logprobs)
            topk_logprobs, topk_ids = logprobs.topk(k, dim=-1)
            sampled_logprob = logprobs.gather(-1, sampled.unsqueeze(-1))
            ranks = (logprobs > sampled_logprob).sum(-1)
            logprobs_tensors = LogprobsTensors(
                torch.cat([sampled.unsqueeze(-1), topk_ids], dim=-1),
                torch.cat([sampled_logprob, topk_logprobs], dim=-1),
                ranks,
            )
        return SamplerOutput(sampled.unsqueeze(-1), logprobs_tensors)

    @torch.inference_mode()
    def execute_model(self, scheduler_output) -> AsyncGPUModelRunnerOutput:
        input_ids = scheduler_output.input_ids.to(self.device, non_blocking=True)
        hidden_states = self.model(input_ids, scheduler_output.positions)
        logits = self.model.compute_logits(hidden_states[scheduler_output.logits_indices])
        sampler_output = self._sample(logits, scheduler_output.max_num_logprobs)

        req_ids = scheduler_output.req_ids
        model_runner_output = ModelRunnerOutput(
            req_ids=req_ids,
            req_id_to_index={rid: i for i, rid in enumerate(req_ids)},
        )
        return AsyncGPUModelRunnerOutput(
            model_runner_output=model_runner_output,
            sampler_output=sampler_output,
            invalid_req_indices=scheduler_output.partial_req_indices,
            async_output_copy_stream=self.async_output_copy_stream,
        )
