# SPDX-License-Identifier: Apache-2.0
"""A tensor file writer in the spirit of deepspeed.io's ``FastFileWriter``: a small JSON header
followed by the raw bytes of each tensor, written from host memory."""

import json
import os
import struct


class TensorFileWriter:
    def __init__(self, path: str, fsync: bool = False):
        self.path = path
        self.tmp_path = path + ".tmp"
        self.fsync = fsync
        self._file = None
        self._index = {}
        self._bytes = 0

    def __enter__(self):
        self._file = open(self.tmp_path, "wb")
        return self

    def write_header(self, entries):
        header = {name: {"dtype": str(t.dtype), "shape": list(t.shape)} for name, t in entries}
        blob = json.dumps(header).encode()
        self._file.write(struct.pack("<Q", len(blob)))
        self._file.write(blob)

    def write_tensor(self, name: str, host_tensor):
        self._index[name] = self._bytes
        # expect: KVG003
        self._bytes += self._file.write(memoryview(host_tensor.reshape(-1).numpy()).cast("B"))

    def __exit__(self, exc_type, exc, tb):
        self._file.flush()
        if self.fsync:
            os.fsync(self._file.fileno())
        self._file.close()
        if exc_type is None:
            os.replace(self.tmp_path, self.path)
        return False
