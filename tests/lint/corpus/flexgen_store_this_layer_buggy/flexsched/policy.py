import enum
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Policy:
    gpu_batch_size: int
    prompt_len: int
    gen_len: int
    overlap: bool = True
    pin_weight: bool = True


class CopyKind(enum.Enum):
    LOAD_WEIGHT = "load_weight"
    LOAD_CACHE = "load_cache"
    STORE_CACHE = "store_cache"


class StreamSet:
    """One stream per kind of copy; with overlap off everything runs on the compute stream."""

    def __init__(self, overlap: bool):
        if overlap:
            self._streams = {kind: torch.cuda.Stream() for kind in CopyKind}
        else:
            current = torch.cuda.current_stream()
            self._streams = {kind: current for kind in CopyKind}

    def __getitem__(self, kind: CopyKind) -> torch.cuda.Stream:
        return self._streams[kind]
