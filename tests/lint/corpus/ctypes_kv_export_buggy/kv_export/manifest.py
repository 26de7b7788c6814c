# SPDX-FileCopyrightText: Copyright (c) 2025 NVIDIA CORPORATION & AFFILIATES. All rights reserved.
# SPDX-License-Identifier: Apache-2.0
import ctypes
import json
import os
import threading
import zlib


class ExportManifest:

    def __init__(self, export_dir: str):
        os.makedirs(export_dir, exist_ok=True)
        self._path = os.path.join(export_dir, "manifest.jsonl")
        self._lock = threading.Lock()

    def add(self, request_id: int, host_ptr: int, nbytes: int, path: str) -> None:
        view = (ctypes.c_char * nbytes).from_address(host_ptr)
        # expect: KVG003
        digest = zlib.crc32(view)
        record = {"request_id": request_id, "nbytes": nbytes, "crc32": digest, "path": path}
        with self._lock, open(self._path, "a") as fh:
            fh.write(json.dumps(record) + "\n")
