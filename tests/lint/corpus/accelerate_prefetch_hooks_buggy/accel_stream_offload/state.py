from dataclasses import dataclass, field
from typing import Any

import torch

NUM_SLOTS = 2


@dataclass
class StreamingState:
    """State shared by every hook of one streamed model.

    Weights of consecutive blocks are staged in ``NUM_SLOTS`` device arenas; block
    ``i`` always uses arena ``i % NUM_SLOTS`` so the next block can be copied in
    while the current one computes.
    """

    execution_device: torch.device
    arena_numel: int
    dtype: torch.dtype
    stream: Any = None
    arenas: list[torch.Tensor] = field(default_factory=list)
    # slot -> event recorded on `stream` once that slot's weights are in place
    loaded: dict[int, Any] = field(default_factory=dict)

    def __post_init__(self):
        self.execution_device = torch.device(self.execution_device)
        if self.stream is None:
            self.stream = torch.cuda.Stream(device=self.execution_device)
        if not self.arenas:
            self.arenas = [
                torch.empty(self.arena_numel, dtype=self.dtype, device=self.execution_device)
                for _ in range(NUM_SLOTS)
            ]

    def slot_for(self, index: int) -> int:
        return index % NUM_SLOTS
