"""The output of a step whose device-to-host copy is still in flight."""

import torch

from async_runner.outputs import AsyncModelRunnerOutput


class AsyncGPUModelRunnerOutput(AsyncModelRunnerOutput):
    def __init__(self, model_runner_output, sampled_token_ids, invalid_req_indices, async_output_copy_stream):
        self._model_runner_output = model_runner_output
        self._invalid_req_indices = invalid_req_indices
        # keep the device tensor alive until the copy is done
        self._sampled_token_ids = sampled_token_ids
        self._async_copy_ready_event = torch.cuda.Event()

        # start the copy on the output stream; get_output() waits for it
        default_stream = torch.cuda.current_stream()
        with torch.cuda.stream(async_output_copy_stream):
            async_output_copy_stream.wait_stream(default_stream)
            self._sampled_token_ids_cpu = self._sampled_token_ids.to("cpu", non_blocking=True)
            self._async_copy_ready_event.record()

    def get_output(self):
        if not self._async_copy_ready_event.query():
            self._async_copy_ready_event.synchronize()
        valid_sampled_token_ids = self._sampled_token_ids_cpu.tolist()
        for i in self._invalid_req_indices:
            valid_sampled_token_ids[i].clear()
        output = self._model_runner_output
        output.sampled_token_ids = valid_sampled_token_ids
        return output
