"""A file-backed L3 store in the shape of HiCache's storage backends: pages are written as raw
bytes under a key and read back into a caller-provided host buffer."""

import os

import torch


class HiCacheFile:
    def __init__(self, root):
        self.root = root
        os.makedirs(root, exist_ok=True)

    def _path(self, key):
        return os.path.join(self.root, f"{key}.bin")

    def exists(self, key):
        return os.path.exists(self._path(key))

    def set(self, key, value):
        with open(self._path(key), "wb") as f:
            # expect: KVG003
            f.write(value.numpy().tobytes())

    def get(self, key, target):
        with open(self._path(key), "rb") as f:
            data = bytearray(f.read())
        target.copy_(torch.frombuffer(data, dtype=target.dtype).view_as(target))
        return target
