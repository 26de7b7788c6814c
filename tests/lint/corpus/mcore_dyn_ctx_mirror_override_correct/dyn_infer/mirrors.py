# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Pinned host mirrors of context tensors, refreshed asynchronously every step so that the
host-side scheduler can read them without stalling the GPU.

``refresh`` is the template: the subclass picks the tensors and the stream, the base class
issues the copies and records completion.

``ChunkedPrefillMirror`` copies on a high-priority stream of its own so its small copy is
not queued behind the bulk step mirror; it orders that stream behind the compute stream as
the base implementation does."""

from abc import ABC, abstractmethod
from typing import Dict

import torch


class HostMirror(ABC):

    def __init__(self, context):
        self.context = context
        self._stream = torch.cuda.Stream()
        self._done = torch.cuda.Event()
        self._host: Dict[str, torch.Tensor] = {
            name: torch.empty(t.shape, dtype=t.dtype, device="cpu", pin_memory=True)
            for name, t in self.device_tensors().items()
        }

    @abstractmethod
    def device_tensors(self) -> Dict[str, torch.Tensor]:
        """Name -> context tensor mirrored by this object."""

    def _copy_stream(self):
        stream = self._stream
        stream.wait_stream(torch.cuda.current_stream())
        return stream

    def refresh(self):
        stream = self._copy_stream()
        with torch.cuda.stream(stream):
            for name, tensor in self.device_tensors().items():
                self._host[name].copy_(tensor, non_blocking=True)
            self._done.record()

    def wait(self):
        self._done.synchronize()

    def __getitem__(self, name):
        return self._host[name]


class StepMetadataMirror(HostMirror):

    def device_tensors(self):
        ctx = self.context
        return {
            "kv_length_offsets": ctx.request_kv_length_offsets,
            "output_lengths": ctx.request_output_lengths,
            "last_token": ctx.request_last_token,
        }


class ChunkedPrefillMirror(HostMirror):

    def __init__(self, context):
        super().__init__(context)
        low, high = torch.cuda.Stream.priority_range()
        self._priority_stream = torch.cuda.Stream(priority=high)

    def device_tensors(self):
        return {"prefill_remaining": self.context.request_prefill_remaining}

    def _copy_stream(self):
        stream = self._priority_stream
        stream.wait_stream(torch.cuda.current_stream())
        return stream
