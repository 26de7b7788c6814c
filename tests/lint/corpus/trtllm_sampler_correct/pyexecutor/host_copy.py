"""Pinned host staging for sampler outputs."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class HostStagingBuffers:
    new_tokens: torch.Tensor
    new_tokens_lens: torch.Tensor

    @classmethod
    def allocate(cls, max_tokens: int,
                 max_num_sequences: int) -> "HostStagingBuffers":
        return cls(
            new_tokens=torch.empty((max_tokens, max_num_sequences),
                                   dtype=torch.int32,
                                   pin_memory=True),
            new_tokens_lens=torch.empty((max_num_sequences, ),
                                        dtype=torch.int32,
                                        pin_memory=True),
        )

    def views(self, num_seqs: int) -> dict[str, torch.Tensor]:
        return {
            "new_tokens": self.new_tokens[:, :num_seqs],
            "new_tokens_lens": self.new_tokens_lens[:num_seqs],
        }


def stage_to_host(device_tensors: dict[str, torch.Tensor],
                  host_views: dict[str, torch.Tensor],
                  stream: torch.cuda.Stream) -> torch.cuda.Event:
    """Enqueue the device->host copies on ``stream`` and return its event."""
    with torch.cuda.stream(stream):
        for name, src in device_tensors.items():
            host_views[name].copy_(src, non_blocking=True)
            src.record_stream(stream)
        copy_done = torch.cuda.Event()
        copy_done.record(stream)
    return copy_done
