# SPDX-License-Identifier: Apache-2.0
import logging
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from .async_output import AsyncGPUModelRunnerOutput
from .model_runner import GPUModelRunner
from .outputs import ModelRunnerOutput

logger = logging.getLogger(__name__)


class UniProcExecutor:
    def __init__(self, model_runner: GPUModelRunner):
        self.model_runner = model_runner
        self.async_output_thread = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="WorkerAsyncOutput"
        )

    def execute_model(self, scheduler_output: Any) -> "Future[ModelRunnerOutput]":
        output = self.model_runner.execute_model(scheduler_output)
        if isinstance(output, AsyncGPUModelRunnerOutput):
            return self.async_output_thread.submit(output.get_output)
        future: Future[ModelRunnerOutput] = Future()
        future.set_result(output)
        return future

    def shutdown(self) -> None:
        self.async_output_thread.shutdown(wait=True)
