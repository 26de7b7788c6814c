"""Per-step sampling output and its pinned host mirror."""

from dataclasses import dataclass
from typing import Optional

import torch

from sgl_overlap.async_d2h import AsyncD2HCopyWorker, HostCopyDone


@dataclass
class HostTokenBuffers:
    next_token_ids: torch.Tensor
    next_token_logprobs: torch.Tensor

    @classmethod
    def allocate(cls, max_running_requests: int) -> "HostTokenBuffers":
        return cls(
            next_token_ids=torch.empty(max_running_requests, dtype=torch.int64, pin_memory=True),
            next_token_logprobs=torch.empty(max_running_requests, dtype=torch.float32, pin_memory=True),
        )


@dataclass
class GenerationBatchResult:
    next_token_ids: torch.Tensor
    next_token_logprobs: torch.Tensor
    batch_size: int
    host: Optional[HostTokenBuffers] = None
    copy_done: Optional[HostCopyDone] = None

    def copy_to_cpu(self, worker: AsyncD2HCopyWorker, host: HostTokenBuffers) -> None:
        """Start the device-to-host copy of the sampled tokens; ``copy_done`` tells when the
        host mirror is valid."""
        n = self.batch_size
        self.host = host

        def _copy() -> None:
            host.next_token_ids[:n].copy_(self.next_token_ids, non_blocking=True)
            host.next_token_logprobs[:n].copy_(self.next_token_logprobs, non_blocking=True)

        self.copy_done = worker.submit(_copy)
