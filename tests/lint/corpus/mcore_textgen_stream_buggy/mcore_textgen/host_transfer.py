# Copyright (c) 2025, NVIDIA CORPORATION. All rights reserved.
from typing import List, Optional, Tuple

import torch


def _current_device() -> torch.device:
    acc = torch.accelerator.current_accelerator()
    return torch.device(acc.type, torch.accelerator.current_device_index())


class StepHostBuffers:
    """Pinned per-step landing zone for sampled tokens and their log-probs."""

    def __init__(self, max_steps: int, batch_size: int):
        self.tokens = torch.empty((max_steps, batch_size), dtype=torch.int64, pin_memory=True)
        self.log_probs = torch.empty((max_steps, batch_size), dtype=torch.float32, pin_memory=True)


class HostTransferStream:
    """Dedicated stream that drains per-step results to the host while the next step runs."""

    def __init__(self, device: Optional[torch.device] = None):
        self.device = device if device is not None else _current_device()
        self._stream = torch.Stream(device=self.device)

    def launch(self, produced: torch.Event, pairs: List[Tuple[torch.Tensor, torch.Tensor]]) -> torch.Event:
        self._stream.wait_event(produced)
        with self._stream:
            for host, dev in pairs:
                # expect: KVG001
                host.copy_(dev, non_blocking=True)
        done = torch.Event(device=self.device)
        done.record(self._stream)
        return done

    def synchronize(self) -> None:
        self._stream.synchronize()
