from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OffloadPolicy:
    """Base policy: parameters stay on the accelerator."""


@dataclass(frozen=True)
class CPUOffloadPolicy(OffloadPolicy):
    """Keep sharded parameters in host memory between forward and backward.

    Attributes:
        pin_memory: allocate the host shards in page-locked memory so the copies can overlap.
        offload_after_forward: move the local shards to host once the forward of the group ends
            and bring them back right before its backward.
    """

    pin_memory: bool = True
    offload_after_forward: bool = True
