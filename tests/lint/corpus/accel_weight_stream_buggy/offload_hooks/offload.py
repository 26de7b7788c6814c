# Copyright 2022 The HuggingFace Team. All rights reserved.

import json
import os
from collections.abc import Mapping
from typing import Dict

import numpy as np

OFFLOAD_INDEX_NAME = "index.json"


class OffloadedWeightsLoader(Mapping):
    """Read-mostly view over weights offloaded to a folder as one memory-mapped `.dat` file per tensor."""

    def __init__(self, save_folder: str):
        self.save_folder = save_folder
        with open(os.path.join(save_folder, OFFLOAD_INDEX_NAME), "r", encoding="utf-8") as f:
            self.index: Dict[str, dict] = json.load(f)
        self.all_keys = list(self.index.keys())

    def _open(self, key: str, mode: str = "r") -> np.memmap:
        info = self.index[key]
        shape = tuple(info["shape"]) if len(info["shape"]) > 0 else (1, )
        path = os.path.join(self.save_folder, f"{key}.dat")
        return np.memmap(path, dtype=info["dtype"], shape=shape, mode=mode)

    def __getitem__(self, key: str) -> np.memmap:
        return self._open(key)

    def numel(self, key: str) -> int:
        return int(np.prod(self.index[key]["shape"] or [1]))

    def write_back(self, key: str, host_array: np.ndarray) -> None:
        weight = self._open(key, mode="r+")
        # expect: KVG003
        np.copyto(weight, host_array[:weight.size].reshape(weight.shape))
        weight.flush()

    def __iter__(self):
        return iter(self.all_keys)

    def __len__(self) -> int:
        return len(self.all_keys)
