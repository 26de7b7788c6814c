# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from contextlib import contextmanager

import torch


@contextmanager
def on_stream(stream: torch.Stream):
    previous = torch.accelerator.current_stream(stream.device)
    torch.accelerator.set_stream(stream)
    try:
        yield stream
    finally:
        torch.accelerator.set_stream(previous)


class PartitionLoader(object):
    """Uploads host partitions into a single device staging buffer on a side stream."""

    def __init__(self, max_numel: int, dtype: torch.dtype, device: torch.device):
        self.staging = torch.empty(max_numel, dtype=dtype, device=device)
        self.h2d_stream = torch.Stream(device=device)
        self.loaded = torch.Event(device=device)
        self.consumed = torch.Event(device=device)

    def load(self, host_partition: torch.Tensor) -> torch.Tensor:
        dst = self.staging.narrow(0, 0, host_partition.numel())
        self.h2d_stream.wait_event(self.consumed)
        with on_stream(self.h2d_stream):
            dst.copy_(host_partition, non_blocking=True)
        self.loaded.record(self.h2d_stream)
        return dst

    def mark_consumed(self, stream: torch.Stream) -> None:
        self.consumed.record(stream)
