# SPDX-License-Identifier: Apache-2.0
from concurrent.futures import Future, ThreadPoolExecutor

import torch

from v1_runner.gpu_model_runner import GPUModelRunner, SchedulerOutput
from v1_runner.outputs import AsyncModelRunnerOutput, ModelRunnerOutput


class GPUWorker:
    def __init__(self, model, local_rank: int, use_async_scheduling: bool = True):
        self.device = torch.device(f"cuda:{local_rank}")
        torch.cuda.set_device(self.device)
        self.model_runner = GPUModelRunner(model, self.device, use_async_scheduling)
        self.async_output_executor = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="WorkerAsyncOutput"
        )

    def execute_model(self, scheduler_output: SchedulerOutput) -> "Future[ModelRunnerOutput]":
        output = self.model_runner.execute_model(scheduler_output)
        if isinstance(output, AsyncModelRunnerOutput):
            return self.async_output_executor.submit(output.get_output)
        done: Future[ModelRunnerOutput] = Future()
        done.set_result(output)
        return done

    def shutdown(self) -> None:
        self.async_output_executor.shutdown(wait=True)
