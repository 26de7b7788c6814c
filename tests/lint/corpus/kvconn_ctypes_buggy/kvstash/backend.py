# SPDX-License-Identifier: Apache-2.0
import os


class FileStash:
    def __init__(self, root: str) -> None:
        self.root = root
        os.makedirs(root, exist_ok=True)

    def _path(self, layer: str, block_hash: bytes) -> str:
        return os.path.join(self.root, layer, block_hash.hex())

    def contains(self, layer: str, block_hash: bytes) -> bool:
        return os.path.exists(self._path(layer, block_hash))

    def put(self, layer: str, block_hash: bytes, data: bytes) -> None:
        path = self._path(layer, block_hash)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as fh:
            fh.write(data)

    def get(self, layer: str, block_hash: bytes) -> bytes:
        with open(self._path(layer, block_hash), "rb") as fh:
            return fh.read()
