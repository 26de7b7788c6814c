# coding=utf-8
# Copyright 2025 The HuggingFace Team. All rights reserved.
# Licensed under the Apache License, Version 2.0
import threading
from typing import Dict

import torch


class PinnedStateSnapshot:
    """A reusable set of pinned host tensors mirroring a model state dict."""

    def __init__(self):
        self.tensors: Dict[str, torch.Tensor] = {}
        self.step: int = -1
        self.written = threading.Event()
        self.written.set()

    def capture(self, state_dict: Dict[str, torch.Tensor], step: int) -> None:
        """Enqueues device-to-host copies of `state_dict` on the current accelerator stream."""
        self.step = step
        for name, tensor in state_dict.items():
            host = self.tensors.get(name)
            if host is None or host.shape != tensor.shape or host.dtype != tensor.dtype:
                host = torch.empty_like(tensor, device="cpu", pin_memory=True)
                self.tensors[name] = host
            # expect: KVG001
            host.copy_(tensor.detach(), non_blocking=True)
