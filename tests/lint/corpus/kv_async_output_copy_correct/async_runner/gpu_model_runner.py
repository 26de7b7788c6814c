"""The model runner: forward, sample into a persistent device buffer, hand back the output."""

import torch

from async_runner.async_output import AsyncGPUModelRunnerOutput
from async_runner.config import DEVICE
from async_runner.outputs import ModelRunnerOutput


class GPUModelRunner:
    def __init__(self, model, scheduler_config):
        self.model = model
        self.use_async_scheduling = scheduler_config.async_scheduling
        self.max_num_reqs = scheduler_config.max_num_seqs
        self.sampled_token_ids_buf = torch.zeros((self.max_num_reqs, 1), dtype=torch.int64, device=DEVICE)
        self.async_output_copy_stream = torch.cuda.Stream()

    @torch.inference_mode()
    def execute_model(self, scheduler_output):
        num_reqs = scheduler_output.num_reqs
        hidden_states = self.model(scheduler_output.input_ids, scheduler_output.positions)
        logits = self.model.compute_logits(hidden_states)
        sampled = self.sampled_token_ids_buf[:num_reqs]
        torch.argmax(logits, dim=-1, keepdim=True, out=sampled)

        # requests still in chunked prefill get no token this step
        invalid_req_indices = [
            i for i, req_id in enumerate(scheduler_output.req_ids) if req_id in scheduler_output.partial_prefill_req_ids
        ]
        output = ModelRunnerOutput(
            req_ids=list(scheduler_output.req_ids),
            req_id_to_index={req_id: i for i, req_id in enumerate(scheduler_output.req_ids)},
        )
        if not self.use_async_scheduling:
            token_ids = sampled.tolist()
            for i in invalid_req_indices:
                token_ids[i].clear()
            output.sampled_token_ids = token_ids
            return output
        return AsyncGPUModelRunnerOutput(output, sampled, invalid_req_indices, self.async_output_copy_stream)
