import os

import torch


class HiCacheFile:
    """L3 storage backend: one file per page, keyed by the page content hash."""

    def __init__(self, file_path: str):
        self.file_path = file_path
        os.makedirs(self.file_path, exist_ok=True)

    def _key_path(self, key: str) -> str:
        return os.path.join(self.file_path, f"{key}.bin")

    def exists(self, key: str) -> bool:
        return os.path.exists(self._key_path(key))

    def set(self, key: str, value: torch.Tensor) -> bool:
        path = self._key_path(key)
        with open(path + ".tmp", "wb") as f:
            f.write(value.view(torch.uint8).numpy().tobytes())
        os.replace(path + ".tmp", path)
        return True
