# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team
import queue
import threading
from dataclasses import dataclass
from typing import Any, Dict, Optional

from deepspeed.utils import logger

from .config import DecoupledCheckpointConfig
from .constants import CHECKPOINT_WRITER_THREAD, SHUTDOWN
from .io_utils import persist_state_dict
from .staging import PinnedStateStager


@dataclass
class _SaveRequest:
    cpu_state: Dict[str, Any]
    path: str


class DecoupledCheckpointEngine:
    """Checkpoint engine whose file writes run on a background thread."""

    def __init__(self, config: Optional[DecoupledCheckpointConfig] = None):
        self.config = config or DecoupledCheckpointConfig()
        self.stager = PinnedStateStager(pin_memory=self.config.pin_memory)
        self._requests: "queue.Queue[Optional[_SaveRequest]]" = queue.Queue(maxsize=self.config.queue_depth)
        self._errors: list = []
        self._writer = threading.Thread(target=self._writer_loop, name=CHECKPOINT_WRITER_THREAD, daemon=True)
        self._writer.start()

    def _writer_loop(self) -> None:
        while True:
            request = self._requests.get()
            try:
                if request is SHUTDOWN:
                    return
                nbytes = persist_state_dict(request.cpu_state, request.path, fsync=self.config.fsync)
                logger.info(f"[DecoupledCheckpointEngine] saved {request.path} ({nbytes} bytes)")
            except Exception as exc:  # surfaced in commit()
                self._errors.append(exc)
            finally:
                self._requests.task_done()

    def save(self, state_dict: Dict[str, Any], path: str) -> None:
        # host buffers are reused between saves: let the previous write finish first
        self._requests.join()
        cpu_state, staged = self.stager.stage(state_dict)
        self._requests.put(_SaveRequest(cpu_state, path))
        # the caller may update parameters as soon as this returns
        staged.synchronize()

    def commit(self, tag: str) -> bool:
        self._requests.join()
        if self._errors:
            raise RuntimeError(f"checkpoint {tag} failed: {self._errors[0]}")
        logger.info(f"[DecoupledCheckpointEngine] checkpoint {tag} is complete")
        return True

    def cleanup(self) -> None:
        self._requests.put(SHUTDOWN)
        self._writer.join()
