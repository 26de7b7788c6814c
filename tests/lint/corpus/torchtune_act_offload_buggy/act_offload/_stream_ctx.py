# Copyright (c) Meta Platforms, Inc. and affiliates.
# All rights reserved.
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Tuple

import torch


@dataclass
class OffloadStreamContext:
    """Streams and in-flight bookkeeping shared by the pack/unpack hooks."""

    device: torch.device
    compute: torch.cuda.Stream
    offload: torch.cuda.Stream
    # tensor_id -> (gpu activation kept alive until its D2H finished, event)
    fwd_stash: Dict[int, Tuple[torch.Tensor, torch.cuda.Event]] = field(default_factory=dict)

    @classmethod
    def create(cls, device: torch.device | None = None) -> "OffloadStreamContext":
        device = device or torch.device("cuda", torch.cuda.current_device())
        return cls(
            device=device,
            compute=torch.cuda.default_stream(device),
            offload=torch.cuda.Stream(device),
        )

    def drain_fwd_stash(self, keep_last: int = 1) -> None:
        """Release GPU activations whose offload copy the compute stream has waited on."""
        for tensor_id in sorted(self.fwd_stash)[:-keep_last or None]:
            _, event = self.fwd_stash.pop(tensor_id)
            self.compute.wait_event(event)
