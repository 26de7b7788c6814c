# SPDX-License-Identifier: Apache-2.0
import torch

from .outputs import ModelRunnerOutput, SamplerOutput


class AsyncGPUModelRunnerOutput:
    def __init__(
        self,
        model_runner_output: ModelRunnerOutput,
        sampler_output: SamplerOutput,
        invalid_req_indices: list[int],
        async_output_copy_stream: torch.cuda.Stream,
    ):
        self._model_runner_output = model_runner_output
        self._invalid_req_indices = invalid_req_indices

        # Keep the device tensors alive until the copies are done.
        self._sampled_token_ids = sampler_output.sampled_token_ids
        self._logprobs_tensors = sampler_output.logprobs_tensors

        self._async_copy_ready_event = torch.cuda.Event()
        default_stream = torch.cuda.current_stream()
        with torch.cuda.stream(async_output_copy_stream):
            async_output_copy_stream.wait_stream(default_stream)
            self._logprobs_tensors_cpu = None
            if self._logprobs_tensors is not None:
                self._logprobs_tensors_cpu = self._logprobs_tensors.to_cpu_nonblocking()
            self._sampled_token_ids_cpu = self._sampled_token_ids.to(
                "cpu", non_blocking=True
            )
            self._async_copy_ready_event.record()

    def get_output(self) -> ModelRunnerOutput:
        """Runs in the output thread; blocks until the copies land."""
        self._async_copy_ready_event.synchronize()

        valid_sampled_token_ids = self._sampled_token_ids_cpu.tolist()
        for i in self._invalid_req_indices:
            valid_sampled_token_ids[i].clear()

        output = self._model_runner_output
        output.sampled_token_ids = valid_sampled_token_ids
        if self._logprobs_tensors_cpu is not None:
            output.logprobs = self._logprobs_tensors_cpu.tolists()
        return output
