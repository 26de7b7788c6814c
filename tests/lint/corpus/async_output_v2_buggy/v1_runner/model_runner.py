import logging
from typing import Optional

import torch

from v1_runner.async_output import AsyncGPUModelRunnerOutput
from v1_runner.outputs import LogprobsTensors, ModelRunnerOutput, SamplerOutput

logger = logging.getLogger(__name__)


class GPUModelRunner:
    def __init__(self, model: torch.nn.Module, device: torch.device, max_num_logprobs: int = 0):
        self.model = model
        self.device = device
        self.max_num_logprobs = max_num_logprobs
        self.async_output_copy_stream = torch.cuda.Stream(device=device)

    def _sample(self, logits: torch.Tensor, num_logprobs: Optional[int]) -> SamplerOutput:
        sampled = logits.argmax(dim=-1, keepdim=True).to(torch.int32)
        logprobs_tensors = None
        if num_logprobs:
            logprobs = logits.log_softmax(dim=-1, dtype=torch.float32)
            top_lp, top_ids = logprobs.topk(num_logprobs, dim=-1)
            ranks = (logprobs > logprobs.gather(-1, sampled.long())).sum(-1)
            logprobs_tensors = LogprobsTensors(top_ids.to(torch.int32), top_lp, ranks)
        return SamplerOutput(sampled_token_ids=sampled, logprobs_tensors=logprobs_tensors)

    @torch.inference_mode()
    def execute_model(self, req_ids: list[str], input_ids: torch.Tensor,
                      positions: torch.Tensor, num_logprobs: Optional[int],
                      invalid_req_indices: list[int]) -> AsyncGPUModelRunnerOutput:
        hidden_states = self.model(input_ids=input_ids, positions=positions)
        logits = self.model.compute_logits(hidden_states)
        sampler_output = self._sample(logits, num_logprobs)
        output = ModelRunnerOutput(
            req_ids=req_ids,
            req_id_to_index={rid: i for i, rid in enumerate(req_ids)},
        )
        return AsyncGPUModelRunnerOutput(
            model_runner_output=output,
            sampler_output=sampler_output,
            invalid_req_indices=invalid_req_indices,
            async_output_copy_stream=self.async_output_copy_stream,
        )
