"""L3 storage backends: pages stored and fetched by key."""

import os
from typing import List

import torch


class HiCacheFile:

    def __init__(self, root: str):
        self.root = root
        os.makedirs(root, exist_ok=True)

    def exists(self, key: str) -> bool:
        return os.path.exists(os.path.join(self.root, key + ".bin"))

    def batch_set(self, keys: List[str], values: List[torch.Tensor]) -> bool:
        for key, value in zip(keys, values):
            # expect: KVG003
            value.view(torch.uint8).numpy().tofile(os.path.join(self.root, key + ".bin"))
        return True


def create_storage_backend(name: str, extra_config: dict):
    if name == "file":
        return HiCacheFile(extra_config.get("root", "/tmp/hicache"))
    raise ValueError(f"unknown storage backend {name!r}")
