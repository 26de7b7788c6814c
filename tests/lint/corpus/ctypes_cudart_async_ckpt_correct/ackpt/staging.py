"""A single pinned arena sized for the whole state dict, carved into per-tensor ranges."""

import math
from dataclasses import dataclass
from typing import Dict, List

import torch

ALIGN = 512


@dataclass(frozen=True)
class Entry:
    name: str
    offset: int
    nbytes: int
    dtype: str
    shape: List[int]


class PinnedArena:
    def __init__(self, state: Dict[str, torch.Tensor]):
        self.entries: List[Entry] = []
        offset = 0
        for name, t in state.items():
            nbytes = t.numel() * t.element_size()
            self.entries.append(Entry(name, offset, nbytes, str(t.dtype), list(t.shape)))
            offset += int(math.ceil(nbytes / ALIGN) * ALIGN)
        self.host = torch.empty(offset, dtype=torch.uint8, pin_memory=True)
        self.base = self.host.data_ptr()

    def view(self, entry: Entry) -> torch.Tensor:
        return self.host[entry.offset : entry.offset + entry.nbytes]
