import logging
from concurrent.futures import Future, ThreadPoolExecutor

from v1_runner.model_runner import GPUModelRunner
from v1_runner.outputs import ModelRunnerOutput

logger = logging.getLogger(__name__)


class UniProcExecutor:
    """Single-process executor; resolves async runner outputs on a helper thread
    so the engine can schedule step N+1 while step N's tokens come back."""

    max_concurrent_batches = 2

    def __init__(self, model_runner: GPUModelRunner):
        self.model_runner = model_runner
        self.async_output_thread = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="WorkerAsyncOutput"
        )

    def execute_model(self, scheduler_output: dict) -> "Future[ModelRunnerOutput]":
        async_output = self.model_runner.execute_model(
            req_ids=scheduler_output["req_ids"],
            input_ids=scheduler_output["input_ids"],
            positions=scheduler_output["positions"],
            num_logprobs=scheduler_output.get("num_logprobs"),
            invalid_req_indices=scheduler_output.get("invalid_req_indices", []),
        )
        return self.async_output_thread.submit(async_output.get_output)

    def shutdown(self) -> None:
        self.async_output_thread.shutdown(wait=True)
