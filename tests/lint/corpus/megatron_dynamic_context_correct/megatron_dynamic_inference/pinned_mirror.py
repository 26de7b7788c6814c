from dataclasses import dataclass, field

import torch


@dataclass
class PinnedMirror:
    """A pinned host copy of the leading rows of a device bookkeeping tensor."""

    name: str
    gpu: torch.Tensor
    cpu: torch.Tensor = field(init=False, repr=False)

    def __post_init__(self):
        self.cpu = torch.empty(self.gpu.shape, dtype=self.gpu.dtype, device="cpu", pin_memory=True)

    def refresh(self, count: int) -> None:
        if count == 0:
            return
        self.cpu[:count].copy_(self.gpu[:count], non_blocking=True)

    def host_view(self, start: int, stop: int) -> torch.Tensor:
        return self.cpu[start:stop]
