# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

import logging
from typing import Dict, List, Optional

import torch

from pipe_offload.accelerator import get_accelerator
from pipe_offload.constants import NUM_ACTIVATION_BUFFERS

logger = logging.getLogger(__name__)


class ActivationSwapper:
    """Offloads checkpointed stage inputs to pinned host memory and brings them
    back into a small ring of device buffers ahead of the backward pass."""

    def __init__(self, buffer_shape, dtype: torch.dtype, num_buffers: int = NUM_ACTIVATION_BUFFERS):
        acc = get_accelerator()
        self.swap_stream = acc.Stream()
        self.device_buffers: List[torch.Tensor] = [
            torch.empty(buffer_shape, dtype=dtype, device=acc.current_device_name())
            for _ in range(num_buffers)
        ]
        self.release_events: List[Optional[object]] = [None] * num_buffers
        self.swap_in_events: Dict[int, object] = {}
        self.host_store: Dict[int, torch.Tensor] = {}

    def buffer_id(self, micro_batch_id: int) -> int:
        return micro_batch_id % len(self.device_buffers)

    def swap_out(self, micro_batch_id: int, activation: torch.Tensor) -> None:
        acc = get_accelerator()
        host = acc.pin_memory(torch.empty(activation.shape, dtype=activation.dtype))
        self.swap_stream.wait_stream(acc.current_stream())
        with acc.stream(self.swap_stream):
            host.copy_(activation, non_blocking=True)
        activation.record_stream(self.swap_stream)
        self.host_store[micro_batch_id] = host

    def swap_in(self, micro_batch_id: int) -> None:
        acc = get_accelerator()
        buf_id = self.buffer_id(micro_batch_id)
        release = self.release_events[buf_id]
        with acc.stream(self.swap_stream):
            if release is not None:
                self.swap_stream.wait_event(release)
            self.device_buffers[buf_id].copy_(self.host_store[micro_batch_id], non_blocking=True)
            ready = acc.Event()
            ready.record(self.swap_stream)
        self.swap_in_events[micro_batch_id] = ready

    def get(self, micro_batch_id: int) -> torch.Tensor:
        acc = get_accelerator()
        acc.current_stream().wait_event(self.swap_in_events.pop(micro_batch_id))
        return self.device_buffers[self.buffer_id(micro_batch_id)]

    def release(self, micro_batch_id: int) -> None:
        acc = get_accelerator()
        done = acc.Event()
        done.record(acc.current_stream())
        self.release_events[self.buffer_id(micro_batch_id)] = done
        self.host_store.pop(micro_batch_id, None)
