# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
"""Offload of optimizer-owned device tensors to pinned host memory, with a d2h and an h2d
stream shared by every offloader of the process. Subclasses say which tensors they own;
``offload`` / ``reload`` are the template both directions follow."""

import os
from abc import ABC, abstractmethod
from contextlib import contextmanager
from typing import Dict

import torch


class _OffloadStreams:
    _instance = None

    def __init__(self):
        self._d2h = torch.cuda.Stream()
        self._h2d = torch.cuda.Stream()

    @classmethod
    def get(cls):
        if cls._instance is None:
            cls._instance = _OffloadStreams()
        return cls._instance

    @property
    def d2h(self):
        return self._d2h

    @property
    def h2d(self):
        return self._h2d


class StateOffloader(ABC):

    def __init__(self):
        self._host: Dict[str, torch.Tensor] = {}
        self._offload_done = torch.cuda.Event()
        self._reload_done = torch.cuda.Event()
        self.offloaded = False

    @property
    def d2h_stream(self):
        return _OffloadStreams.get().d2h

    @property
    def h2d_stream(self):
        return _OffloadStreams.get().h2d

    @abstractmethod
    def state_tensors(self) -> Dict[str, torch.Tensor]:
        """Name -> device tensor of everything this offloader moves."""

    @contextmanager
    def _on(self, stream):
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            yield stream

    def _host_buffer(self, name, tensor):
        host = self._host.get(name)
        if host is None or host.shape != tensor.shape:
            host = torch.empty(tensor.shape, dtype=tensor.dtype, device="cpu", pin_memory=True)
            self._host[name] = host
        return host

    @torch.no_grad()
    def offload(self):
        tensors = self.state_tensors()
        with self._on(self.d2h_stream) as stream:
            for name, tensor in tensors.items():
                self._host_buffer(name, tensor).copy_(tensor, non_blocking=True)
            self._offload_done.record(stream)
        # the device copies are freed only after the d2h stream has read them
        torch.cuda.current_stream().wait_event(self._offload_done)
        for tensor in tensors.values():
            tensor.untyped_storage().resize_(0)
        self.offloaded = True

    @torch.no_grad()
    def reload(self):
        tensors = self.state_tensors()
        for name, tensor in tensors.items():
            host = self._host[name]
            tensor.untyped_storage().resize_(host.numel() * host.element_size())
        with self._on(self.h2d_stream) as stream:
            for name, tensor in tensors.items():
                tensor.copy_(self._host[name], non_blocking=True)
            self._reload_done.record(stream)
        torch.cuda.current_stream().wait_event(self._reload_done)
        self.offloaded = False

    def persist(self, directory):
        """Write the host copies to ``directory`` (one raw file per tensor)."""
        os.makedirs(directory, exist_ok=True)
        for name, host in self._host.items():
            path = os.path.join(directory, name.replace(".", "_") + ".bin")
            # bf16 has no numpy dtype: write the raw bytes
            # expect: KVG003
            host.view(torch.uint8).numpy().tofile(path)
