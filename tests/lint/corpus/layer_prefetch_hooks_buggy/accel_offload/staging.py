from typing import List, Optional

import torch


class StagingRing:
    """Two device-side flat buffers that offloaded layers are copied into in turn."""

    def __init__(self, device: torch.device, numel: int, dtype: torch.dtype) -> None:
        self.device = device
        self.buffers: List[torch.Tensor] = [
            torch.empty(numel, dtype=dtype, device=device) for _ in range(2)
        ]
        self.stream = torch.Stream(device=device)
        self.loaded = [torch.Event(device=device) for _ in range(2)]
        self.released = [torch.Event(device=device) for _ in range(2)]

    def load(self, slot: int, host_flat: torch.Tensor, after: Optional[torch.Event]) -> None:
        with self.stream:
            if after is not None:
                self.stream.wait_event(after)
            # expect: KVG004
            self.buffers[slot][: host_flat.numel()].copy_(host_flat, non_blocking=True)
            self.loaded[slot].record(self.stream)

    def view(self, slot: int, numel: int) -> torch.Tensor:
        return self.buffers[slot][:numel]
