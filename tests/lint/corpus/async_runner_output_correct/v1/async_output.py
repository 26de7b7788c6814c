import torch

from v1.outputs import LogprobsLists, ModelRunnerOutput, SamplerOutput


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
        # Keep references to the device tensors until the copy is done.
        self._sampled_token_ids = sampler_output.sampled_token_ids
        self._logprobs_tensors = sampler_output.logprobs_tensors
        self._logprobs_tensors_cpu = None
        self.async_copy_ready_event = torch.cuda.Event()

        default_stream = torch.cuda.current_stream()
        with torch.cuda.stream(async_output_copy_stream):
            async_output_copy_stream.wait_stream(default_stream)
            self._sampled_token_ids_cpu = self._sampled_token_ids.to(
                "cpu", non_blocking=True
            )
            if self._logprobs_tensors is not None:
                self._logprobs_tensors_cpu = self._logprobs_tensors.to_cpu_nonblocking()
            self.async_copy_ready_event.record()

    def get_output(self) -> ModelRunnerOutput:
        self.async_copy_ready_event.synchronize()
        # Release the device tensors once the copy has completed.
        del self._sampled_token_ids, self._logprobs_tensors

        valid_sampled_token_ids = self._sampled_token_ids_cpu.tolist()
        for i in self._invalid_req_indices:
            valid_sampled_token_ids[i].clear()

        output = self._model_runner_output
        output.sampled_token_ids = valid_sampled_token_ids
        if self._logprobs_tensors_cpu is not None:
            output.logprobs = LogprobsLists(*(t.tolist() for t in self._logprobs_tensors_cpu))
        return output
