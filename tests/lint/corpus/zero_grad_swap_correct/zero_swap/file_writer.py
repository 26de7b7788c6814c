# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

from concurrent.futures import Future, ThreadPoolExecutor
import os
from typing import List, Sequence

import torch

from .constants import DEFAULT_WRITER_THREADS


class SwapFileWriter(object):
    """Writes regions of pinned staging buffers to swap files on worker threads."""

    def __init__(self, swap_folder: str, num_threads: int = DEFAULT_WRITER_THREADS):
        self.swap_folder = swap_folder
        os.makedirs(swap_folder, exist_ok=True)
        self._pool = ThreadPoolExecutor(max_workers=num_threads, thread_name_prefix="ds_swap_writer")

    def submit(self, regions: Sequence[torch.Tensor], paths: Sequence[str]) -> Future:
        return self._pool.submit(self._write_regions, list(regions), list(paths))

    def _write_regions(self, regions: List[torch.Tensor], paths: List[str]) -> int:
        written = 0
        for region, path in zip(regions, paths):
            with open(path, "wb") as fd:
                written += fd.write(region.view(torch.uint8).numpy())
        return written

    def close(self):
        self._pool.shutdown(wait=True)
