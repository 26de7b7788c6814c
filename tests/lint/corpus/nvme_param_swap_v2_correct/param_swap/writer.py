# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

import torch

from deepspeed.utils import logger


class SwapFileWriter:
    """Writes pinned swap buffers to files from a small thread pool."""

    def __init__(self, thread_count: int):
        self._executor = ThreadPoolExecutor(max_workers=thread_count, thread_name_prefix="ds_swap_writer")

    def _write(self, buffer: torch.Tensor, numel: int, path: str, copied: Any, on_done: Callable[[], None]) -> int:
        try:
            copied.synchronize()
            with open(path, "wb") as fh:
                nbytes = fh.write(buffer.narrow(0, 0, numel).numpy().tobytes())
            return nbytes
        except OSError:
            logger.exception(f"swap out to {path} failed")
            raise
        finally:
            on_done()

    def submit(self, buffer: torch.Tensor, numel: int, path: str, copied: Any, on_done: Callable[[], None]) -> Future:
        return self._executor.submit(self._write, buffer, numel, path, copied, on_done)

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True)
