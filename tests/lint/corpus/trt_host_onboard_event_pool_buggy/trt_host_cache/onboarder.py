# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
"""Onboarding: copies host-cached prefix blocks into freshly allocated primary blocks on a
transfer stream, so that the copies overlap the host work of preparing the batch.

Bug: the onboard stream is never ordered behind the executor's compute stream. The primary
blocks an onboard fills come off the free list, and the overlap executor frees a finished
request's blocks while the forward that last read them is still queued; the onboard can
overwrite them under that forward."""

from dataclasses import dataclass, field
from typing import List, Tuple

import torch

from .block_pools import BlockPool
from .event_pool import CudaEventPool


@dataclass
class OnboardHandle:
    event: torch.cuda.Event
    primary_blocks: List[int] = field(default_factory=list)

    def make_stream_wait(self, stream) -> None:
        stream.wait_event(self.event)

    def done(self) -> bool:
        return self.event.query()


class HostCacheOnboarder:

    def __init__(self, primary: BlockPool, secondary: BlockPool, event_pool: CudaEventPool):
        self.primary = primary
        self.secondary = secondary
        self.event_pool = event_pool
        self._stream = torch.cuda.Stream()

    @property
    def stream(self) -> torch.cuda.Stream:
        return self._stream

    def onboard(self, pairs: List[Tuple[int, int]]) -> OnboardHandle:
        """``pairs`` is a list of (secondary block, primary block)."""
        handle = OnboardHandle(self.event_pool.acquire())
        with torch.cuda.stream(self.stream):
            for secondary_block, primary_block in pairs:
                # expect: KVG004
                self.primary.block(primary_block).copy_(self.secondary.block(secondary_block), non_blocking=True)
                handle.primary_blocks.append(primary_block)
            handle.event.record()
        return handle
