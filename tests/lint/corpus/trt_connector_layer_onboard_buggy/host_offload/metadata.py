from dataclasses import dataclass, field
from typing import List, Tuple

import torch


@dataclass
class HostOffloadMetadata:
    # (host slot, device block) pairs
    loads: List[Tuple[int, int]] = field(default_factory=list)
    saves: List[Tuple[int, int]] = field(default_factory=list)
    save_req_ids: List[int] = field(default_factory=list)


@dataclass
class LayerwiseLoad:
    """One step's loads: an event per layer, recorded on the load stream."""
    layer_done: List[torch.cuda.Event]

    @classmethod
    def for_layers(cls, num_layers: int) -> "LayerwiseLoad":
        return cls([torch.cuda.Event() for _ in range(num_layers)])


@dataclass
class PendingSave:
    req_ids: List[int]
    done: torch.cuda.Event
