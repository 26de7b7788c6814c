"""Execution environment: the GPU plus the CPU that holds the KV cache."""

import dataclasses

import torch


@dataclasses.dataclass
class ExecutionEnv:
    gpu: torch.device
    cpu_threads: int = 16

    @classmethod
    def create(cls, device: str = "cuda:0") -> "ExecutionEnv":
        env = cls(torch.device(device))
        torch.set_num_threads(env.cpu_threads)
        return env

    def sync(self) -> None:
        """Wait for everything queued on the GPU's current stream."""
        torch.cuda.current_stream(self.gpu).synchronize()
