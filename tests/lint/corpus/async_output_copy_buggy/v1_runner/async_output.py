from __future__ import annotations

import torch

from v1_runner.outputs import ModelRunnerOutput, SamplerOutput


class AsyncGPUModelRunnerOutput:
    """Holds device results while they are copied out on a side stream."""

    def __init__(
        self,
        model_runner_output: ModelRunnerOutput,
        sampler_output: SamplerOutput,
        invalid_req_indices: list[int],
        async_output_copy_stream: torch.Stream,
    ):
        self._model_runner_output = model_runner_output
        self._invalid_req_indices = invalid_req_indices
        self._sampled_token_ids = sampler_output.sampled_token_ids
        self._logprobs_tensors = sampler_output.logprobs_tensors
        self._logprobs_tensors_cpu = None
        self.async_copy_ready_event = torch.Event()

        default_stream = torch.accelerator.current_stream()
        with async_output_copy_stream:
            if self._logprobs_tensors is not None:
                self._logprobs_tensors_cpu = self._logprobs_tensors.to_cpu_nonblocking()
            async_output_copy_stream.wait_stream(default_stream)
            self.sampled_token_ids_cpu = self._sampled_token_ids.to("cpu", non_blocking=True)
            self.async_copy_ready_event.record()

    def get_output(self) -> ModelRunnerOutput:
        """Runs on the engine's output thread."""
        self.async_copy_ready_event.synchronize()
        valid_sampled_token_ids = self.sampled_token_ids_cpu.tolist()
        for i in self._invalid_req_indices:
            valid_sampled_token_ids[i].clear()
        output = self._model_runner_output
        output.sampled_token_ids = valid_sampled_token_ids
        if self._logprobs_tensors_cpu is not None:
            output.logprobs = self._logprobs_tensors_cpu.tolists()
        del self._sampled_token_ids, self._logprobs_tensors
        return output
