# SPDX-License-Identifier: Apache-2.0
"""Helpers that stage sampler outputs into pinned host memory."""

from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from .sampler import SampleStateTensors


def empty_pinned_like(t: torch.Tensor) -> torch.Tensor:
    return torch.empty(t.shape, dtype=t.dtype, device="cpu", pin_memory=True)


def stage_to_host(
    device: "SampleStateTensors",
    host: "SampleStateTensors",
    ready: torch.cuda.Event,
    stream: torch.cuda.Stream,
) -> torch.cuda.Event:
    """Enqueue D2H copies on ``stream`` once ``ready`` has fired.

    Returns an event recorded on ``stream`` after the last copy.
    """
    with torch.cuda.stream(stream):
        stream.wait_event(ready)
        host.new_tokens.copy_(device.new_tokens, non_blocking=True)
        if device.next_draft_tokens is not None:
            host.next_draft_tokens.copy_(device.next_draft_tokens, non_blocking=True)
        done = torch.cuda.Event()
        done.record(stream)
    return done
