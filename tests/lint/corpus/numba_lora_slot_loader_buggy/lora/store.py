"""Adapters kept resident in pinned host memory, loaded from .npz files once."""
from dataclasses import dataclass
from typing import Dict

import numpy as np
from numba import cuda


@dataclass
class HostAdapter:
    name: str
    lora_a: np.ndarray   # [rank, hidden], pinned
    lora_b: np.ndarray   # [hidden, rank], pinned
    scaling: float


class AdapterStore:
    def __init__(self) -> None:
        self._adapters: Dict[str, HostAdapter] = {}

    def register(self, name: str, path: str, alpha: float) -> HostAdapter:
        with np.load(path) as f:
            a, b = f["lora_a"].astype(np.float16), f["lora_b"].astype(np.float16)
        pa = cuda.pinned_array(a.shape, dtype=np.float16)
        pb = cuda.pinned_array(b.shape, dtype=np.float16)
        pa[...] = a
        pb[...] = b
        ad = HostAdapter(name, pa, pb, alpha / a.shape[0])
        self._adapters[name] = ad
        return ad

    def __getitem__(self, name: str) -> HostAdapter:
        return self._adapters[name]
