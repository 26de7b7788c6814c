from dataclasses import dataclass, field
from typing import Any, Optional

import torch

from .constants import MAX_BEAM_WIDTH


@dataclass(kw_only=True)
class ScheduledRequests:
    context_requests: list[Any] = field(default_factory=list)
    generation_requests: list[Any] = field(default_factory=list)

    def all_requests(self) -> list[Any]:
        return [*self.context_requests, *self.generation_requests]

    @property
    def batch_size(self) -> int:
        return len(self.context_requests) + len(self.generation_requests)


@dataclass(kw_only=True)
class SampleStateTensors:
    new_tokens: torch.Tensor
    log_probs: Optional[torch.Tensor] = None

    def items(self):
        return [(k, v) for k, v in vars(self).items() if v is not None]


@dataclass(kw_only=True)
class SampleState:
    scheduled_requests: ScheduledRequests

    device: Optional[SampleStateTensors] = None
    host: Optional[SampleStateTensors] = None

    sampler_event: Optional[torch.cuda.Event] = None


class HostTensorStaging:
    """Pinned host mirrors of the per-step sampler outputs."""

    def __init__(self, max_num_sequences: int, return_log_probs: bool):
        shape = (max_num_sequences, MAX_BEAM_WIDTH)
        self.new_tokens = torch.empty(shape, dtype=torch.int64, pin_memory=True)
        self.log_probs = (
            torch.empty(shape, dtype=torch.float32, pin_memory=True)
            if return_log_probs
            else None
        )

    def view(self, num_seqs: int) -> SampleStateTensors:
        return SampleStateTensors(
            new_tokens=self.new_tokens[:num_seqs],
            log_probs=None if self.log_probs is None else self.log_probs[:num_seqs],
        )


def copy_to_host(host: SampleStateTensors, device: SampleStateTensors) -> None:
    """Enqueue device->host copies of every populated field on the current stream."""
    for name, src in device.items():
        dst = getattr(host, name)
        # expect: KVG001
        dst.copy_(src, non_blocking=True)
