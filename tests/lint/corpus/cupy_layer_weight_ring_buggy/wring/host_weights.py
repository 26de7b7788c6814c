"""Layer weights kept in pinned host memory (read once from .npy shards)."""

import os
from dataclasses import dataclass
from typing import List

import cupyx
import numpy as np


@dataclass
class HostLayer:
    w_in: np.ndarray
    w_out: np.ndarray


def _pinned_copy(array: np.ndarray) -> np.ndarray:
    out = cupyx.empty_pinned(array.shape, dtype=array.dtype)
    out[...] = array
    return out


def load_host_layers(directory: str, num_layers: int) -> List[HostLayer]:
    layers = []
    for i in range(num_layers):
        w_in = np.load(os.path.join(directory, f"layer{i:03d}.w_in.npy"), mmap_mode="r")
        w_out = np.load(os.path.join(directory, f"layer{i:03d}.w_out.npy"), mmap_mode="r")
        layers.append(HostLayer(_pinned_copy(w_in), _pinned_copy(w_out)))
    return layers
