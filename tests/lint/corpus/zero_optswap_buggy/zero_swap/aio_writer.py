# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team

import queue
import threading
from dataclasses import dataclass
from typing import Any, Callable, List

import torch

from deepspeed.utils import logger


@dataclass
class SwapWriteRequest:
    paths: List[str]
    views: List[torch.Tensor]
    buffer_indices: List[int]
    copy_done: Any


class SwapWriter:
    """Background thread that drains pinned staging buffers to NVMe files."""

    def __init__(self, depth: int, on_complete: Callable[[SwapWriteRequest], None]):
        self._queue: "queue.Queue[SwapWriteRequest]" = queue.Queue(maxsize=depth)
        self._on_complete = on_complete
        self._thread = threading.Thread(target=self._run, name="ds-optimizer-swap-writer", daemon=True)
        self._thread.start()

    def submit(self, request: SwapWriteRequest) -> None:
        self._queue.put(request)

    def flush(self) -> None:
        self._queue.join()

    def _run(self) -> None:
        while True:
            request = self._queue.get()
            try:
                request.copy_done.synchronize()
                for path, view in zip(request.paths, request.views):
                    with open(path, "wb") as fd:
                        fd.write(view.numpy().tobytes())
                self._on_complete(request)
            except Exception:
                logger.exception("optimizer swap write failed")
            finally:
                self._queue.task_done()
