# SPDX-License-Identifier: Apache-2.0
# Standard
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, List, Optional, Tuple
import logging
import queue
import threading

# Third Party
import torch

# First Party
from kvretrieve.ops import load_blocks

logger = logging.getLogger(__name__)


@dataclass
class LoadTask:
    layer_id: int
    kv_layer: torch.Tensor
    chunks: List[torch.Tensor]
    block_ranges: List[Tuple[int, int]]
    ready_event: Any
    done_event: Any
    finished: threading.Event = field(default_factory=threading.Event)
    error: Optional[BaseException] = None


class AsyncLoadWorker(threading.Thread):
    def __init__(self, dev_mod: ModuleType, load_stream: Any):
        super().__init__(name="kvretrieve-loader", daemon=True)
        self._dev_mod = dev_mod
        self._load_stream = load_stream
        self._tasks: "queue.Queue[Optional[LoadTask]]" = queue.Queue()

    def submit(self, task: LoadTask) -> None:
        self._tasks.put(task)

    def stop(self) -> None:
        self._tasks.put(None)
        self.join()

    def run(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                return
            try:
                with self._dev_mod.stream(self._load_stream):
                    self._load_stream.wait_event(task.ready_event)
                    for chunk, (lo, hi) in zip(
                        task.chunks, task.block_ranges, strict=True
                    ):
                        load_blocks(task.kv_layer, lo, hi, chunk)
                    task.done_event.record(self._load_stream)
                task.done_event.synchronize()
            except BaseException as e:  # noqa: BLE001
                logger.exception("Loading layer %d failed", task.layer_id)
                task.error = e
            finally:
                task.finished.set()
