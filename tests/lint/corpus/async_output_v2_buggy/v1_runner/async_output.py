import torch

from v1_runner.outputs import AsyncModelRunnerOutput, ModelRunnerOutput, SamplerOutput


class AsyncGPUModelRunnerOutput(AsyncModelRunnerOutput):
    """Starts the device->host copies of a step's sampler output on a side
    stream and materialises the python lists later, off the step loop."""

    def __init__(self, model_runner_output: ModelRunnerOutput, sampler_output: SamplerOutput,
                 invalid_req_indices: list[int], async_output_copy_stream: torch.cuda.Stream):
        self._model_runner_output = model_runner_output
        self._invalid_req_indices = invalid_req_indices
        # keep the device tensors alive until the copies are done
        self._sampled_token_ids = sampler_output.sampled_token_ids
        self._logprobs_tensors = sampler_output.logprobs_tensors
        self.async_copy_ready_event = torch.cuda.Event()

        default_stream = torch.cuda.current_stream()
        with torch.cuda.stream(async_output_copy_stream):
            async_output_copy_stream.wait_stream(default_stream)
            self._sampled_token_ids_cpu = self._sampled_token_ids.to("cpu", non_blocking=True)
            self._logprobs_tensors_cpu = (
                self._logprobs_tensors.to_cpu_nonblocking()
                if self._logprobs_tensors is not None else None
            )
            self.async_copy_ready_event.record()

    def _logprobs_lists(self):
        if self._logprobs_tensors_cpu is None:
            return None
        self.async_copy_ready_event.synchronize()
        return self._logprobs_tensors_cpu.tolists()

    def get_output(self) -> ModelRunnerOutput:
        output = self._model_runner_output
        output.logprobs = self._logprobs_lists()
        # expect: KVG003
        valid_sampled_token_ids = self._sampled_token_ids_cpu.tolist()
        for i in self._invalid_req_indices:
            valid_sampled_token_ids[i].clear()
        output.sampled_token_ids = valid_sampled_token_ids
        del self._sampled_token_ids, self._logprobs_tensors
        return output
